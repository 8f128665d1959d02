package dev.onceguard.checkout;

import dev.onceguard.TestTokens;
import io.agroal.api.AgroalDataSource;
import io.quarkus.test.junit.QuarkusTest;
import io.smallrye.config.PropertiesConfigSource;
import io.smallrye.config.SmallRyeConfig;
import io.smallrye.config.SmallRyeConfigBuilder;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import static dev.onceguard.Database.count;
import static dev.onceguard.Database.execute;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** A deployment's catalog file, upserted into the products GET /api/products answers; and where the demo goes. */
@QuarkusTest
class CatalogLoaderTest {

    @Inject
    CatalogLoader catalog;

    @Inject
    AgroalDataSource db;

    @TempDir
    Path folder;

    private final String a = "sku-" + UUID.randomUUID();
    private final String b = "sku-" + UUID.randomUUID();

    @Test
    void aFileIsUpsertedByProductIdAndAnsweredInItsOwnShape() throws IOException {
        String first = """
                [{"productId": "%s", "name": "Desk lamp", "kind": "PHYSICAL", "price": "45.00", "currency": "EUR", "available": 7},
                 {"productId": "%s", "name": "Manual", "kind": "DIGITAL", "price": "5.50", "currency": "EUR", "available": null}]"""
                .formatted(a, b);
        catalog.upsert(write("catalog.json", first));
        String second = """
                [{"productId": "%s", "name": "Desk lamp, brass", "kind": "PHYSICAL", "price": "49.00", "currency": "EUR", "available": 2}]"""
                .formatted(a);
        catalog.upsert(write("catalog-2.json", second));

        List<Map<String, Object>> products = given().header("Authorization", TestTokens.bearer(TestTokens.newUser()))
                .get("/api/products").then().statusCode(200).extract().jsonPath().getList("$");
        assertThat(products).filteredOn(p -> List.of(a, b).contains(p.get("productId"))).containsExactlyInAnyOrder(
                product(a, "Desk lamp, brass", "PHYSICAL", "49.00", "EUR", 2),
                product(b, "Manual", "DIGITAL", "5.50", "EUR", null));
    }

    @Test
    void aFileWithOneInvalidProductChangesNothing() throws IOException {
        Path file = write("catalog.json", """
                [{"productId": "%s", "name": "Desk lamp", "kind": "PHYSICAL", "price": "45.00", "currency": "EUR", "available": 7},
                 {"productId": "%s", "name": "Manual", "kind": "DIGITAL", "price": "5.50", "currency": "EUR"}]"""
                .formatted(a, b));

        assertThatThrownBy(() -> catalog.upsert(file)).isInstanceOf(CatalogFileInvalid.class)
                .hasMessage("Catalog file " + file + ": product \"" + b + "\" (entry 2) lacks \"available\""
                        + " (units in stock, or null for unlimited)");
        assertThat(count(db, "SELECT count(*) FROM products WHERE product_id IN (?, ?)", a, b)).isZero();
    }

    @Test
    void aMissingFileIsNamed() {
        Path missing = folder.resolve("nowhere.json");

        assertThatThrownBy(() -> catalog.upsert(missing)).isInstanceOf(CatalogFileInvalid.class)
                .hasMessageStartingWith("Catalog file " + missing + " cannot be read")
                .hasMessageContaining("onceguard.catalog.file");
    }

    @Test
    void theDemoProductsAreAddedWhereMissingAndNeverOverwriteAProduct() {
        execute(db, "DELETE FROM products WHERE product_id = 'p-404' AND NOT EXISTS "
                + "(SELECT 1 FROM order_items WHERE product_id = 'p-404')");
        execute(db, "UPDATE products SET stock = 24 WHERE product_id = 'p-310'");
        try {
            catalog.addDemoProducts();

            assertThat(count(db, "SELECT count(*) FROM products WHERE product_id = 'p-404' AND stock = 0")).isEqualTo(1);
            assertThat(count(db, "SELECT stock FROM products WHERE product_id = 'p-310'")).isEqualTo(24);
        } finally {
            execute(db, "UPDATE products SET stock = 25 WHERE product_id = 'p-310'");
        }
    }

    @Test
    void theDemoCatalogIsOnInDevAndTestOnly() throws IOException {
        assertThat(demoSetting("prod")).isFalse();
        assertThat(demoSetting("dev")).isTrue();
        assertThat(demoSetting("test")).isTrue();
    }

    private static boolean demoSetting(String profile) throws IOException {
        SmallRyeConfig config = new SmallRyeConfigBuilder().addDefaultInterceptors().withProfile(profile)
                .withSources(new PropertiesConfigSource(
                        CatalogLoaderTest.class.getClassLoader().getResource("application.properties"), 250))
                .build();
        return config.getOptionalValue("onceguard.catalog.demo", Boolean.class).orElse(false);
    }

    private static Map<String, Object> product(String id, String name, String kind, String price, String currency,
                                               Integer available) {
        Map<String, Object> product = new HashMap<>();
        product.put("productId", id);
        product.put("name", name);
        product.put("kind", kind);
        product.put("price", price);
        product.put("currency", currency);
        product.put("available", available);
        return product;
    }

    private Path write(String name, String content) throws IOException {
        return Files.writeString(folder.resolve(name), content);
    }
}
