package dev.onceguard.payment;

import dev.onceguard.TestTokens;
import dev.onceguard.maintenance.LeaseRecovery;
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
import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItem;
import static org.assertj.core.api.Assertions.assertThat;

/** Paying for orders through the API and the built-in sandbox provider, over HTTP like any external provider. */
@QuarkusTest
class PaymentFlowTest {

    @Inject
    AgroalDataSource db;

    @Inject
    LeaseRecovery leaseRecovery;

    private final String user = TestTokens.newUser();

    private String newOrder() {
        return given().header("Authorization", TestTokens.bearer(user)).header("Idempotency-Key", UUID.randomUUID().toString())
                .contentType("application/json").body("{\"items\":[{\"productId\":\"p-184\",\"quantity\":1}],\"currency\":\"RUB\"}")
                .post("/api/orders").then().statusCode(201).extract().path("orderId");
    }

    private Response pay(String orderId, String key, String token) {
        return given().header("Authorization", TestTokens.bearer(user)).header("Idempotency-Key", key)
                .contentType("application/json").body("{\"paymentMethodToken\":\"" + token + "\"}")
                .post("/api/orders/" + orderId + "/payments");
    }

    private int sandboxChargesOf(String orderId) {
        return given().get("/sandbox/v1/payments?orderId=" + orderId).then().statusCode(200).extract()
                .<List<Object>>path("data").size();
    }

    @Test
    void aSuccessfulPaymentMakesTheOrderPaidAndAnnouncesItOnce() {
        String orderId = newOrder();
        String key = UUID.randomUUID().toString();

        Response paid = pay(orderId, key, "tok_success");
        Response replay = pay(orderId, key, "tok_success");

        assertThat(paid.statusCode()).isEqualTo(201);
        assertThat(paid.<String>path("status")).isEqualTo("SUCCEEDED");
        assertThat(paid.<String>path("amount")).isEqualTo("1500.00");
        assertThat(paid.<String>path("providerPaymentId")).isNotBlank();
        assertThat(paid.header("Location")).isEqualTo("/api/payments/" + paid.path("paymentId"));
        assertThat(replay.header("Idempotent-Replayed")).isEqualTo("true");
        assertThat(replay.asByteArray()).isEqualTo(paid.asByteArray());
        assertThat(count(db, "SELECT count(*) FROM orders WHERE order_id = ? AND status = 'PAID'", orderId))
                .isEqualTo(1);
        assertThat(count(db, "SELECT count(*) FROM outbox_events WHERE aggregate_id = ? AND event_type = 'ORDER_PAID'", orderId))
                .isEqualTo(1);
        assertThat(sandboxChargesOf(orderId)).isEqualTo(1);
        given().header("Authorization", TestTokens.bearer(user)).get("/api/orders/" + orderId).then().statusCode(200)
                .extract().<List<String>>path("payments.paymentId").contains(paid.<String>path("paymentId"));
    }

    @Test
    void aPaidOrderRefusesAnotherAttemptAndTheRefusalIsReplayed() {
        String orderId = newOrder();
        pay(orderId, UUID.randomUUID().toString(), "tok_success").then().statusCode(201);
        String key = UUID.randomUUID().toString();

        Response refused = pay(orderId, key, "tok_success");
        Response replayed = pay(orderId, key, "tok_success");

        assertThat(refused.statusCode()).isEqualTo(409);
        assertThat(refused.<String>path("code")).isEqualTo("ORDER_ALREADY_PAID");
        assertThat(replayed.header("Idempotent-Replayed")).isEqualTo("true");
        assertThat(replayed.asByteArray()).isEqualTo(refused.asByteArray());
        assertThat(sandboxChargesOf(orderId)).isEqualTo(1);
    }

    @Test
    void aDeclineIsFinalAndANewKeyMayTryAgain() {
        String orderId = newOrder();

        Response declined = pay(orderId, UUID.randomUUID().toString(), "tok_decline");
        Response second = pay(orderId, UUID.randomUUID().toString(), "tok_success");

        assertThat(declined.statusCode()).isEqualTo(201);
        assertThat(declined.<String>path("status")).isEqualTo("FAILED");
        assertThat(second.<String>path("status")).isEqualTo("SUCCEEDED");
    }

    @Test
    void aTokenTheProviderRefusesFailsThePaymentFinallyAndANewKeyMayTryAgain() {
        String orderId = newOrder();
        String key = UUID.randomUUID().toString();

        Response refused = pay(orderId, key, "tok_unknown");
        Response replay = pay(orderId, key, "tok_unknown");
        Response second = pay(orderId, UUID.randomUUID().toString(), "tok_success");

        assertThat(refused.statusCode()).isEqualTo(201);
        assertThat(refused.<String>path("status")).isEqualTo("FAILED");
        assertThat(refused.<String>path("providerPaymentId")).isNull();
        assertThat(replay.statusCode()).isEqualTo(201);
        assertThat(replay.header("Idempotent-Replayed")).isEqualTo("true");
        assertThat(replay.<String>path("paymentId")).isEqualTo(refused.path("paymentId"));
        assertThat(count(db, "SELECT count(*) FROM idempotency_records WHERE idempotency_key = ? AND status = 'COMPLETED'",
                key)).isEqualTo(1);
        assertThat(second.statusCode()).isEqualTo(201);
        assertThat(second.<String>path("status")).isEqualTo("SUCCEEDED");
        assertThat(sandboxChargesOf(orderId)).isEqualTo(1);
    }

    @Test
    void aPendingAttemptBlocksASecondOne() {
        String orderId = newOrder();

        Response pending = pay(orderId, UUID.randomUUID().toString(), "tok_pending");
        Response second = pay(orderId, UUID.randomUUID().toString(), "tok_success");

        assertThat(pending.<String>path("status")).isEqualTo("PENDING");
        assertThat(second.statusCode()).isEqualTo(409);
        assertThat(second.<String>path("code")).isEqualTo("PAYMENT_ATTEMPT_UNRESOLVED");
        assertThat(sandboxChargesOf(orderId)).isEqualTo(1);
    }

    @Test
    void scenario8_aTimeoutAfterSuccessIsUnknownAndTheRetryFindsTheFirstPayment() {
        String orderId = newOrder();
        String key = UUID.randomUUID().toString();

        Response unknown = pay(orderId, key, "tok_timeout_after_commit");
        Response retry = pay(orderId, key, "tok_timeout_after_commit");
        Response replay = pay(orderId, key, "tok_timeout_after_commit");

        assertThat(unknown.statusCode()).isEqualTo(202);
        assertThat(unknown.<String>path("status")).isEqualTo("UNKNOWN");
        assertThat(unknown.header("Retry-After")).isNotBlank();
        assertThat(retry.statusCode()).isEqualTo(201);
        assertThat(retry.<String>path("status")).isEqualTo("SUCCEEDED");
        assertThat(retry.<String>path("paymentId")).isEqualTo(unknown.path("paymentId"));
        assertThat(replay.header("Idempotent-Replayed")).isEqualTo("true");
        assertThat(sandboxChargesOf(orderId)).isEqualTo(1);
    }

    @Test
    void scenario8_leaseRecoveryResolvesAnUnknownOutcomeAndTheClientRetryReplaysIt() {
        String orderId = newOrder();
        String key = UUID.randomUUID().toString();

        Response unknown = pay(orderId, key, "tok_error_after_commit");
        leaseRecovery.runNow();
        Response retry = pay(orderId, key, "tok_error_after_commit");

        assertThat(unknown.statusCode()).isEqualTo(202);
        assertThat(retry.statusCode()).isEqualTo(201);
        assertThat(retry.header("Idempotent-Replayed")).isEqualTo("true");
        assertThat(retry.<String>path("status")).isEqualTo("SUCCEEDED");
        assertThat(count(db, "SELECT count(*) FROM payments WHERE order_id = ?", orderId)).isEqualTo(1);
        assertThat(sandboxChargesOf(orderId)).isEqualTo(1);
    }

    @Test
    void twoKeysPayingOneOrderAtTheSameMomentChargeOnce() throws Exception {
        String orderId = newOrder();
        CyclicBarrier barrier = new CyclicBarrier(2);
        ExecutorService pool = Executors.newFixedThreadPool(2);
        List<Future<Response>> answers = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            answers.add(pool.submit(() -> {
                barrier.await();
                return pay(orderId, UUID.randomUUID().toString(), "tok_success");
            }));
        }
        List<Integer> statuses = new ArrayList<>();
        for (Future<Response> answer : answers) {
            statuses.add(answer.get().statusCode());
        }
        pool.shutdown();

        assertThat(statuses).containsExactlyInAnyOrder(201, 409);
        assertThat(sandboxChargesOf(orderId)).isEqualTo(1);
    }

    @Test
    void paymentsAreVisibleToTheirOwnerOnly() {
        String orderId = newOrder();
        String paymentId = pay(orderId, UUID.randomUUID().toString(), "tok_success").path("paymentId");

        given().header("Authorization", TestTokens.bearer(user)).get("/api/payments/" + paymentId).then().statusCode(200);
        given().header("Authorization", TestTokens.bearer(TestTokens.newUser())).get("/api/payments/" + paymentId)
                .then().statusCode(404);
        given().header("Authorization", TestTokens.bearer(TestTokens.newUser())).header("Idempotency-Key", "k")
                .contentType("application/json").body("{\"paymentMethodToken\":\"tok_success\"}")
                .post("/api/orders/" + orderId + "/payments").then().statusCode(404);
    }

    @Test
    void badPaymentRequestsStoreNothing() {
        String orderId = newOrder();
        String key = UUID.randomUUID().toString();

        pay(orderId, key, "").then().statusCode(400);
        given().header("Authorization", TestTokens.bearer(user)).header("Idempotency-Key", key)
                .contentType("application/json").body("{\"paymentMethodToken\":\"tok_success\",\"amount\":\"1.00\"}")
                .post("/api/orders/" + orderId + "/payments").then().statusCode(400);
        given().header("Authorization", TestTokens.bearer(user))
                .contentType("application/json").body("{\"paymentMethodToken\":\"tok_success\"}")
                .post("/api/orders/" + orderId + "/payments").then().statusCode(400);
        for (String notAString : List.of("7", "1.5", "true")) {
            given().header("Authorization", TestTokens.bearer(user)).header("Idempotency-Key", key)
                    .contentType("application/json").body("{\"paymentMethodToken\":" + notAString + "}")
                    .post("/api/orders/" + orderId + "/payments")
                    .then().statusCode(400).body("code", equalTo("VALIDATION_FAILED"))
                    .body("errors.field", hasItem("paymentMethodToken"));
        }

        assertThat(count(db, "SELECT count(*) FROM payments WHERE order_id = ?", orderId)).isZero();
        assertThat(pay(orderId, key, "tok_success").statusCode()).isEqualTo(201);
    }
}
