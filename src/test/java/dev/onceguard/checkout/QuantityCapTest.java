package dev.onceguard.checkout;

import dev.onceguard.TestTokens;
import io.agroal.api.AgroalDataSource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.Response;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.UUID;

import static dev.onceguard.Database.count;
import static dev.onceguard.Database.execute;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The units of one product one order may hold, its lines together: onceguard.checkout.max-quantity-per-product (100)
 * or the product's own maxQuantityPerOrder from the catalog file. More is refused before anything is written.
 */
@QuarkusTest
class QuantityCapTest {

    @Inject
    AgroalDataSource db;

    @Inject
    CatalogLoader catalog;

    @TempDir
    Path folder;

    private final String user = TestTokens.newUser();
    private final String product = "sku-cap-" + UUID.randomUUID();

    private Response order(String... lines) {
        return given().header("Authorization", TestTokens.bearer(user))
                .header("Idempotency-Key", UUID.randomUUID().toString()).contentType("application/json")
                .body("{\"items\":[" + String.join(",", lines) + "],\"currency\":\"RUB\"}")
                .post("/api/orders");
    }

    private String line(int quantity) {
        return "{\"productId\":\"" + product + "\",\"quantity\":" + quantity + "}";
    }

    private long stock() {
        return count(db, "SELECT stock FROM products WHERE product_id = ?", product);
    }

    private void assertNothingWrittenFor(Response refused, int cap) {
        assertThat(refused.statusCode()).as(refused.asString()).isEqualTo(400);
        assertThat(refused.contentType()).startsWith("application/problem+json");
        assertThat(refused.<String>path("code")).isEqualTo("QUANTITY_LIMIT_EXCEEDED");
        assertThat(refused.<String>path("detail")).contains("at most " + cap + " unit(s) of " + product);
        assertThat(count(db, "SELECT count(*) FROM idempotency_records WHERE user_id = ?", user)).isZero();
        assertThat(count(db, "SELECT count(*) FROM orders WHERE user_id = ?", user)).isZero();
    }

    @Test
    void moreThanTheDefaultCapOfOneProductAcrossLinesIsRefusedWithNothingWritten() {
        execute(db, "INSERT INTO products (product_id, name, kind, price, currency, stock) VALUES (?, 'Sticker',"
                + " 'PHYSICAL', 1.00, 'RUB', 500)", product);

        Response refused = order(line(60), line(41));

        assertNothingWrittenFor(refused, 100);
        assertThat(stock()).isEqualTo(500);
        order(line(60), line(40)).then().statusCode(201);
        assertThat(stock()).isEqualTo(400);
    }

    @Test
    void theCatalogFilesCapOfAProductIsHonouredAndFollowedWhenItChanges() throws IOException {
        String entry = """
                {"productId": "%s", "name": "Signed copy", "kind": "PHYSICAL", "price": "30.00", "currency": "RUB",
                 "available": 10%s}""";
        catalog.upsert(Files.writeString(folder.resolve("capped.json"),
                "[" + entry.formatted(product, ", \"maxQuantityPerOrder\": 3") + "]"));

        assertNothingWrittenFor(order(line(2), line(2)), 3);
        assertThat(stock()).isEqualTo(10);
        order(line(3)).then().statusCode(201);

        catalog.upsert(Files.writeString(folder.resolve("uncapped.json"), "[" + entry.formatted(product, "") + "]"));
        order(line(4)).then().statusCode(201);

        catalog.upsert(Files.writeString(folder.resolve("capped-again.json"),
                "[" + entry.formatted(product, ", \"maxQuantityPerOrder\": 2") + "]"));
        Response refused = order(line(3));
        assertThat(refused.statusCode()).as(refused.asString()).isEqualTo(400);
        assertThat(refused.<String>path("code")).isEqualTo("QUANTITY_LIMIT_EXCEEDED");
        assertThat(stock()).isEqualTo(10);
    }
}
