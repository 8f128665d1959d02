package dev.onceguard.checkout;

import dev.onceguard.TestTokens;
import io.agroal.api.AgroalDataSource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.Response;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

import java.util.UUID;

import static dev.onceguard.Database.count;
import static dev.onceguard.Database.execute;
import static dev.onceguard.checkout.OrdersApi.createOrder;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Orders are priced from the catalog entries the replica keeps in memory; each test first orders a product so that its
 * entry is kept, then changes the product behind the replica's back (as another replica loading a new catalog file
 * would) and checks that the next order follows the database, never the entry kept from before.
 */
@QuarkusTest
class CatalogCacheTest {

    @Inject
    AgroalDataSource db;

    private String product(String price, String currency, Integer stock) {
        String productId = "p-cache-" + UUID.randomUUID();
        execute(db, "INSERT INTO products (product_id, name, kind, price, currency, stock) "
                + "VALUES (?, 'Test product', 'PHYSICAL', CAST(? AS numeric), ?, ?)", productId, price, currency, stock);
        return productId;
    }

    private static String order(String productId, int quantity, String currency) {
        return "{\"items\":[{\"productId\":\"" + productId + "\",\"quantity\":" + quantity + "}],\"currency\":\""
                + currency + "\"}";
    }

    private Response orderOnce(String productId, int quantity, String currency) {
        return createOrder(TestTokens.newUser(), UUID.randomUUID().toString(), order(productId, quantity, currency));
    }

    @Test
    void anOrderAfterAPriceChangeIsPricedAndStoredAtTheNewPrice() {
        String productId = product("100.00", "RUB", null);
        assertThat(orderOnce(productId, 1, "RUB").<String>path("total")).isEqualTo("100.00");

        execute(db, "UPDATE products SET price = 250.00 WHERE product_id = ?", productId);
        Response after = orderOnce(productId, 2, "RUB");

        assertThat(after.statusCode()).isEqualTo(201);
        assertThat(after.<String>path("items[0].unitPrice")).isEqualTo("250.00");
        assertThat(after.<String>path("total")).isEqualTo("500.00");
        String orderId = after.path("orderId");
        assertThat(count(db, "SELECT total * 100 FROM orders WHERE order_id = ?", orderId)).isEqualTo(50_000);
        assertThat(count(db, "SELECT unit_price * 100 FROM order_items WHERE order_id = ?", orderId)).isEqualTo(25_000);
    }

    @Test
    void aProductMovedToTheRequestsCurrencyIsOrderedNotRefusedFromTheOldEntry() {
        String productId = product("100.00", "RUB", null);
        assertThat(orderOnce(productId, 1, "RUB").statusCode()).isEqualTo(201);

        execute(db, "UPDATE products SET currency = 'EUR' WHERE product_id = ?", productId);

        Response inEuros = orderOnce(productId, 1, "EUR");
        assertThat(inEuros.statusCode()).isEqualTo(201);
        assertThat(inEuros.<String>path("currency")).isEqualTo("EUR");
        Response inRoubles = orderOnce(productId, 1, "RUB");
        assertThat(inRoubles.statusCode()).isEqualTo(400);
        assertThat(inRoubles.<String>path("errors[0].message")).isEqualTo("must be EUR, the currency of " + productId);
    }

    @Test
    void aStockLimitedAfterTheEntryWasKeptIsTakenAndNeverOversold() {
        String productId = product("100.00", "RUB", null);
        assertThat(orderOnce(productId, 1, "RUB").statusCode()).as("unlimited when its entry is kept").isEqualTo(201);

        execute(db, "UPDATE products SET stock = 1 WHERE product_id = ?", productId);
        Response last = orderOnce(productId, 1, "RUB");
        Response beyond = orderOnce(productId, 1, "RUB");

        assertThat(last.statusCode()).isEqualTo(201);
        assertThat(beyond.statusCode()).isEqualTo(409);
        assertThat(beyond.<String>path("code")).isEqualTo("OUT_OF_STOCK");
        assertThat(count(db, "SELECT stock FROM products WHERE product_id = ?", productId)).isZero();
    }

    @Test
    void anOrderWhoseProductChangedLeavesOnlyTheOrderPlannedAgain() {
        String productId = product("100.00", "RUB", null);
        String user = TestTokens.newUser();
        String key = UUID.randomUUID().toString();
        assertThat(orderOnce(productId, 1, "RUB").statusCode()).isEqualTo(201);

        execute(db, "UPDATE products SET price = 120.00 WHERE product_id = ?", productId);
        Response first = createOrder(user, key, order(productId, 1, "RUB"));
        Response retry = createOrder(user, key, order(productId, 1, "RUB"));

        assertThat(first.statusCode()).isEqualTo(201);
        assertThat(first.<String>path("total")).as("planned again at the new price").isEqualTo("120.00");
        assertThat(retry.asByteArray()).isEqualTo(first.asByteArray());
        assertThat(count(db, "SELECT count(*) FROM idempotency_records WHERE user_id = ?", user)).isEqualTo(1);
        assertThat(count(db, "SELECT count(*) FROM orders WHERE user_id = ?", user)).isEqualTo(1);
        assertThat(count(db, "SELECT count(*) FROM order_items WHERE product_id = ?", productId)).isEqualTo(2);
    }
}
