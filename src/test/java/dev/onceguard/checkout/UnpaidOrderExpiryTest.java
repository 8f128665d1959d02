package dev.onceguard.checkout;

import dev.onceguard.TestTokens;
import dev.onceguard.platform.Cause;
import dev.onceguard.platform.Jobs;
import io.agroal.api.AgroalDataSource;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.Response;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static dev.onceguard.Database.count;
import static dev.onceguard.Database.execute;
import static dev.onceguard.Database.single;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Unpaid orders past onceguard.checkout.unpaid-order-ttl (30 min) expire and give their stock back, by the job body
 * called here (the schedule is off in tests); orders are made old by moving their created_at back.
 */
@QuarkusTest
class UnpaidOrderExpiryTest {

    @Inject
    AgroalDataSource db;

    @Inject
    UnpaidOrderExpiry expiry;

    @Inject
    MeterRegistry registry;

    private final String product = "sku-expiry-" + UUID.randomUUID();

    private void stockedProduct(int stock) {
        execute(db, "INSERT INTO products (product_id, name, kind, price, currency, stock) VALUES (?, 'Limited print',"
                + " 'PHYSICAL', 10.00, 'RUB', ?)", product, stock);
    }

    private static Response order(String user, String productId, int quantity) {
        return given().header("Authorization", TestTokens.bearer(user))
                .header("Idempotency-Key", UUID.randomUUID().toString()).contentType("application/json")
                .body("{\"items\":[{\"productId\":\"" + productId + "\",\"quantity\":" + quantity
                        + "}],\"currency\":\"RUB\"}")
                .post("/api/orders");
    }

    private static Response pay(String user, String orderId, String token) {
        return given().header("Authorization", TestTokens.bearer(user))
                .header("Idempotency-Key", UUID.randomUUID().toString()).contentType("application/json")
                .body("{\"paymentMethodToken\":\"" + token + "\"}").post("/api/orders/" + orderId + "/payments");
    }

    private void placedMinutesAgo(String orderId, int minutes) {
        execute(db, "UPDATE orders SET created_at = now() - make_interval(mins => ?) WHERE order_id = ?", minutes,
                orderId);
    }

    private long stock() {
        return count(db, "SELECT stock FROM products WHERE product_id = ?", product);
    }

    private String status(String orderId) {
        return single(db, String.class, "SELECT status FROM orders WHERE order_id = ?", orderId);
    }

    private long expiries(String orderId) {
        return count(db, "SELECT count(*) FROM state_transitions WHERE subject_type = 'order' AND subject_id = ?"
                + " AND from_status = 'AWAITING_PAYMENT' AND to_status = 'EXPIRED' AND cause = ?", orderId,
                Cause.UNPAID_ORDER_EXPIRY);
    }

    @Test
    void anUnpaidOrderForTheWholeStockExpiresAfterItsTimeAndAnotherCustomerCanOrder() {
        stockedProduct(119);
        String hoarder = TestTokens.newUser();
        String customer = TestTokens.newUser();
        String orderId = order(hoarder, product, 100).then().statusCode(201).extract().path("orderId");
        String rest = order(hoarder, product, 19).then().statusCode(201).extract().path("orderId");
        Response refused = order(customer, product, 1);
        assertThat(refused.statusCode()).isEqualTo(409);
        assertThat(refused.<String>path("code")).isEqualTo("OUT_OF_STOCK");

        placedMinutesAgo(orderId, 29);
        placedMinutesAgo(rest, 29);
        expiry.runNow();
        assertThat(status(orderId)).isEqualTo("AWAITING_PAYMENT");
        assertThat(order(customer, product, 1).statusCode()).isEqualTo(409);

        double expiredBefore = registry.counter("onceguard.orders.expired").count();
        placedMinutesAgo(orderId, 31);
        placedMinutesAgo(rest, 31);
        Jobs.Finished run = expiry.runNow();

        assertThat(run.outcome()).isEqualTo(Jobs.Outcome.SUCCEEDED);
        assertThat(run.counts().get("expired")).isGreaterThanOrEqualTo(2);
        assertThat(status(orderId)).isEqualTo("EXPIRED");
        assertThat(status(rest)).isEqualTo("EXPIRED");
        assertThat(stock()).isEqualTo(119);
        assertThat(expiries(orderId)).isEqualTo(1);
        assertThat(registry.counter("onceguard.orders.expired").count()).isGreaterThanOrEqualTo(expiredBefore + 2);
        assertThat(count(db, "SELECT count(*) FROM job_runs WHERE id = (SELECT max(id) FROM job_runs WHERE job = ?)"
                + " AND outcome = 'SUCCEEDED' AND (counts ->> 'expired')::bigint >= 2", Jobs.UNPAID_ORDER_EXPIRY))
                .as("this run, recorded with what it expired").isEqualTo(1);
        given().header("Authorization", TestTokens.bearer(hoarder)).get("/api/orders/" + orderId)
                .then().statusCode(200).body("status", org.hamcrest.Matchers.equalTo("EXPIRED"));

        order(customer, product, 1).then().statusCode(201);
        assertThat(stock()).isEqualTo(118);
        expiry.runNow();
        assertThat(stock()).isEqualTo(118);
    }

    @Test
    void aPaymentOfAnExpiredOrderIsRefusedAndNothingIsCharged() {
        stockedProduct(5);
        String owner = TestTokens.newUser();
        String orderId = order(owner, product, 2).then().statusCode(201).extract().path("orderId");
        placedMinutesAgo(orderId, 31);
        expiry.runNow();

        Response paid = pay(owner, orderId, "tok_success");

        assertThat(paid.statusCode()).as(paid.asString()).isEqualTo(409);
        assertThat(paid.<String>path("code")).isEqualTo("ORDER_NOT_PAYABLE");
        assertThat(count(db, "SELECT count(*) FROM payments WHERE order_id = ?", orderId)).isZero();
        assertThat(status(orderId)).isEqualTo("EXPIRED");
        Response canceled = given().header("Authorization", TestTokens.bearer(owner))
                .header("Idempotency-Key", UUID.randomUUID().toString()).contentType("application/json").body("{}")
                .post("/api/orders/" + orderId + "/cancellation");
        assertThat(canceled.<String>path("code")).isEqualTo("ORDER_NOT_CANCELABLE");
        assertThat(stock()).isEqualTo(5);
    }

    @Test
    void anAttemptInFlightHoldsTheOrderAndItsStock() {
        stockedProduct(5);
        String owner = TestTokens.newUser();
        String orderId = order(owner, product, 3).then().statusCode(201).extract().path("orderId");
        // PENDING (201), or UNKNOWN (202) on a machine too busy for the sandbox to answer in time: in flight either way
        assertThat(pay(owner, orderId, "tok_pending").statusCode()).isIn(201, 202);
        placedMinutesAgo(orderId, 90);

        expiry.runNow();

        assertThat(status(orderId)).isEqualTo("AWAITING_PAYMENT");
        assertThat(stock()).isEqualTo(2);
        assertThat(expiries(orderId)).isZero();
    }

    @Test
    void anOrderLockedByAStartingPaymentIsSkippedNotWaitedFor() throws Exception {
        stockedProduct(4);
        String owner = TestTokens.newUser();
        String orderId = order(owner, product, 4).then().statusCode(201).extract().path("orderId");
        placedMinutesAgo(orderId, 31);

        try (Connection payment = db.getConnection()) {
            payment.setAutoCommit(false);
            try (PreparedStatement lock = payment.prepareStatement(
                    "SELECT status FROM orders WHERE order_id = ? AND user_id = ? FOR UPDATE")) {
                lock.setString(1, orderId);
                lock.setString(2, owner);
                lock.executeQuery().close();
            }
            Jobs.Finished whileLocked = expiry.runNow();
            assertThat(whileLocked.outcome()).isEqualTo(Jobs.Outcome.SUCCEEDED);
            assertThat(status(orderId)).isEqualTo("AWAITING_PAYMENT");
            assertThat(stock()).isZero();
            payment.rollback();
        }

        expiry.runNow();
        assertThat(status(orderId)).isEqualTo("EXPIRED");
        assertThat(stock()).isEqualTo(4);
    }

    @Test
    void twoRunsRacingReturnEachOrdersStockOnce() throws Exception {
        int orders = 30;
        stockedProduct(orders * 2);
        List<String> orderIds = new ArrayList<>();
        for (int i = 0; i < orders; i++) {
            String orderId = order(TestTokens.newUser(), product, 2).then().statusCode(201).extract().path("orderId");
            placedMinutesAgo(orderId, 45);
            orderIds.add(orderId);
        }
        assertThat(stock()).isZero();

        CyclicBarrier start = new CyclicBarrier(2);
        ExecutorService threads = Executors.newFixedThreadPool(2);
        try {
            List<Future<Map<String, Long>>> runs = new ArrayList<>();
            for (int run = 1; run <= 2; run++) {
                long runId = run;
                runs.add(threads.submit(() -> {
                    start.await(10, TimeUnit.SECONDS);
                    return expiry.run(Cause.unpaidOrderExpiry(runId));
                }));
            }
            for (Future<Map<String, Long>> run : runs) {
                run.get(60, TimeUnit.SECONDS);
            }
        } finally {
            threads.shutdownNow();
        }

        assertThat(stock()).isEqualTo(orders * 2L);
        for (String orderId : orderIds) {
            assertThat(status(orderId)).isEqualTo("EXPIRED");
            assertThat(expiries(orderId)).isEqualTo(1);
        }
    }

    @Test
    void aPaymentRacingTheExpiryEitherHoldsTheOrderOrIsRefused() throws Exception {
        int rounds = 8;
        stockedProduct(rounds);
        ExecutorService threads = Executors.newFixedThreadPool(2);
        try {
            for (int round = 0; round < rounds; round++) {
                String owner = TestTokens.newUser();
                String orderId = order(owner, product, 1).then().statusCode(201).extract().path("orderId");
                placedMinutesAgo(orderId, 31);
                CyclicBarrier start = new CyclicBarrier(2);
                Future<Response> payment = threads.submit(() -> {
                    start.await(10, TimeUnit.SECONDS);
                    return pay(owner, orderId, "tok_pending");
                });
                Future<Jobs.Finished> run = threads.submit(() -> {
                    start.await(10, TimeUnit.SECONDS);
                    return expiry.runNow();
                });
                Response paid = payment.get(60, TimeUnit.SECONDS);
                run.get(60, TimeUnit.SECONDS);

                long attempts = count(db, "SELECT count(*) FROM payments WHERE order_id = ?", orderId);
                if (status(orderId).equals("EXPIRED")) {
                    assertThat(paid.statusCode()).as(paid.asString()).isEqualTo(409);
                    assertThat(paid.<String>path("code")).isEqualTo("ORDER_NOT_PAYABLE");
                    assertThat(attempts).isZero();
                } else {
                    assertThat(status(orderId)).isEqualTo("AWAITING_PAYMENT");
                    assertThat(paid.statusCode()).as(paid.asString()).isIn(201, 202);
                    assertThat(attempts).isEqualTo(1);
                }
            }
        } finally {
            threads.shutdownNow();
        }
        long held = count(db, "SELECT count(*) FROM orders o JOIN order_items i USING (order_id)"
                + " WHERE i.product_id = ? AND o.status = 'AWAITING_PAYMENT'", product);
        assertThat(stock()).isEqualTo(rounds - held);
    }
}
