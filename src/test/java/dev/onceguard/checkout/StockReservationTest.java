package dev.onceguard.checkout;

import dev.onceguard.TestTokens;
import io.agroal.api.AgroalDataSource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.Response;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static dev.onceguard.Database.count;
import static dev.onceguard.Database.execute;
import static dev.onceguard.checkout.OrdersApi.createOrder;
import static org.assertj.core.api.Assertions.assertThat;

@QuarkusTest
class StockReservationTest {

    @Inject
    AgroalDataSource db;

    private String physicalProduct(int stock) {
        String productId = "p-test-" + UUID.randomUUID();
        execute(db, "INSERT INTO products (product_id, name, kind, price, currency, stock) "
                + "VALUES (?, 'Test gadget', 'PHYSICAL', 100.00, 'RUB', ?)", productId, stock);
        return productId;
    }

    private long stockOf(String productId) {
        return count(db, "SELECT stock FROM products WHERE product_id = ?", productId);
    }

    private static String order(String productId, int quantity) {
        return "{\"items\":[{\"productId\":\"" + productId + "\",\"quantity\":" + quantity + "}],\"currency\":\"RUB\"}";
    }

    @Test
    void fiftyDistinctOrdersRacingForTenUnitsSellExactlyTen() throws Exception {
        String productId = physicalProduct(10);
        int clients = 50;
        CyclicBarrier barrier = new CyclicBarrier(clients);
        ExecutorService pool = Executors.newFixedThreadPool(clients);
        List<Future<Response>> answers = new ArrayList<>();
        for (int i = 0; i < clients; i++) {
            answers.add(pool.submit(() -> {
                barrier.await();
                return createOrder(TestTokens.newUser(), UUID.randomUUID().toString(), order(productId, 1));
            }));
        }
        int sold = 0;
        int refused = 0;
        for (Future<Response> answer : answers) {
            Response response = answer.get();
            if (response.statusCode() == 201) {
                sold++;
            } else {
                assertThat(response.statusCode()).isEqualTo(409);
                assertThat(response.<String>path("code")).isEqualTo("OUT_OF_STOCK");
                refused++;
            }
        }
        pool.shutdown();

        assertThat(sold).isEqualTo(10);
        assertThat(refused).isEqualTo(40);
        assertThat(stockOf(productId)).isZero();
        assertThat(count(db, "SELECT coalesce(sum(quantity), 0) FROM order_items WHERE product_id = ?", productId))
                .isEqualTo(10);
    }

    @Test
    void outOfStockIsStoredAndReplayedWithoutTakingStockLater() {
        String productId = physicalProduct(0);
        String user = TestTokens.newUser();
        String key = UUID.randomUUID().toString();

        Response refused = createOrder(user, key, order(productId, 1));
        execute(db, "UPDATE products SET stock = 5 WHERE product_id = ?", productId);
        Response replayed = createOrder(user, key, order(productId, 1));

        assertThat(refused.statusCode()).isEqualTo(409);
        assertThat(refused.<String>path("code")).isEqualTo("OUT_OF_STOCK");
        assertThat(replayed.statusCode()).isEqualTo(409);
        assertThat(replayed.header("Idempotent-Replayed")).isEqualTo("true");
        assertThat(replayed.asByteArray()).isEqualTo(refused.asByteArray());
        assertThat(stockOf(productId)).isEqualTo(5);
        assertThat(count(db, "SELECT count(*) FROM idempotency_records WHERE user_id = ? AND status = 'FAILED' "
                + "AND response_status = 409", user)).isEqualTo(1);
    }

    @Test
    void anOrderIsAllOrNothingAcrossItsProducts() {
        String plenty = physicalProduct(5);
        String none = physicalProduct(0);
        String user = TestTokens.newUser();
        String body = "{\"items\":[{\"productId\":\"" + plenty + "\",\"quantity\":2},"
                + "{\"productId\":\"" + none + "\",\"quantity\":1}],\"currency\":\"RUB\"}";

        Response refused = createOrder(user, UUID.randomUUID().toString(), body);

        assertThat(refused.statusCode()).isEqualTo(409);
        assertThat(refused.<String>path("detail")).isEqualTo("Not enough stock of " + none + " for 1 unit(s).");
        assertThat(stockOf(plenty)).isEqualTo(5);
        assertThat(count(db, "SELECT count(*) FROM orders WHERE user_id = ?", user)).isZero();
    }

    @Test
    void anOrderWhoseLinesCannotBeWrittenKeepsNeitherItsRecordNorItsStock() {
        String productId = physicalProduct(5);
        String trigger = "refuse_" + productId.replace('-', '_');
        String user = TestTokens.newUser();
        String key = UUID.randomUUID().toString();
        execute(db, """
                CREATE FUNCTION %s() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN
                    IF NEW.product_id = '%s' THEN RAISE EXCEPTION 'the test refuses this line'; END IF;
                    RETURN NEW;
                END $$""".formatted(trigger, productId));
        execute(db, "CREATE TRIGGER " + trigger + " BEFORE INSERT ON order_items FOR EACH ROW EXECUTE FUNCTION "
                + trigger + "()");
        Response failed;
        try {
            failed = createOrder(user, key, order(productId, 2));
        } finally {
            execute(db, "DROP TRIGGER " + trigger + " ON order_items");
            execute(db, "DROP FUNCTION " + trigger + "()");
        }

        assertThat(failed.statusCode()).isEqualTo(500);
        assertThat(count(db, "SELECT count(*) FROM idempotency_records WHERE user_id = ?", user)).isZero();
        assertThat(count(db, "SELECT count(*) FROM orders WHERE user_id = ?", user)).isZero();
        assertThat(stockOf(productId)).isEqualTo(5);
        createOrder(user, key, order(productId, 2)).then().statusCode(201);
        assertThat(stockOf(productId)).isEqualTo(3);
    }

    @Test
    void theSameProductOnTwoLinesReservesTheirSum() {
        String productId = physicalProduct(3);
        String user = TestTokens.newUser();
        String body = "{\"items\":[{\"productId\":\"" + productId + "\",\"quantity\":2},"
                + "{\"productId\":\"" + productId + "\",\"quantity\":2}],\"currency\":\"RUB\"}";

        createOrder(user, UUID.randomUUID().toString(), body).then().statusCode(409);
        createOrder(user, UUID.randomUUID().toString(), order(productId, 3)).then().statusCode(201);

        assertThat(stockOf(productId)).isZero();
    }

    @Test
    void pricesComeFromTheCatalog() {
        Response created = createOrder(TestTokens.newUser(), UUID.randomUUID().toString(),
                "{\"items\":[{\"productId\":\"p-184\",\"quantity\":3},{\"productId\":\"p-220\",\"quantity\":1}],"
                        + "\"currency\":\"RUB\"}");

        assertThat(created.statusCode()).isEqualTo(201);
        assertThat(created.<List<String>>path("items.unitPrice")).containsExactly("1500.00", "4900.00");
        assertThat(created.<String>path("total")).isEqualTo("9400.00");
        assertThat(created.<String>path("status")).isEqualTo("AWAITING_PAYMENT");
        assertThat(created.<String>path("createdAt")).matches("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z");
    }
}
