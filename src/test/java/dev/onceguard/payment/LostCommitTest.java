package dev.onceguard.payment;

import dev.onceguard.TestTokens;
import io.agroal.api.AgroalDataSource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.Response;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static dev.onceguard.Database.count;
import static dev.onceguard.Database.execute;
import static dev.onceguard.Database.single;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A payment attempt whose commit the database lost after the provider charged (what an asynchronous standby's
 * promotion does to the last commits): the provider still holds the charge, the database holds nothing of the attempt,
 * and the client's retry finds no record. The lost commit is made here by deleting the attempt's rows; the provider is
 * the sandbox, over HTTP.
 */
@QuarkusTest
class LostCommitTest {

    @Inject
    AgroalDataSource db;

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

    private List<String> sandboxStatusesOf(String orderId) {
        return given().get("/sandbox/v1/payments?orderId=" + orderId).then().statusCode(200).extract()
                .path("data.status");
    }

    private String sandboxPaymentIdOf(String orderId) {
        return given().get("/sandbox/v1/payments?orderId=" + orderId).then().statusCode(200).extract()
                .path("data[0].id");
    }

    /** Everything the database had of the attempt: its row, its transitions, its operation's record. */
    private void loseTheCommitsOf(String paymentId) {
        long recordId = single(db, Long.class, "SELECT idempotency_record_id FROM payments WHERE payment_id = ?",
                paymentId);
        execute(db, "DELETE FROM state_transitions WHERE subject_type = 'payment' AND subject_id = ?", paymentId);
        execute(db, "DELETE FROM payments WHERE payment_id = ?", paymentId);
        execute(db, "DELETE FROM idempotency_records WHERE id = ?", recordId);
    }

    @Test
    void theRetryAfterALostCommitAdoptsTheProvidersChargeInsteadOfChargingAgain() {
        String orderId = newOrder();
        String key = UUID.randomUUID().toString();
        Response unknown = pay(orderId, key, "tok_error_after_commit");
        assertThat(unknown.statusCode()).isEqualTo(202);
        assertThat(sandboxStatusesOf(orderId)).containsExactly("SUCCEEDED");
        String charge = sandboxPaymentIdOf(orderId);
        loseTheCommitsOf(unknown.path("paymentId"));

        Response retry = pay(orderId, key, "tok_error_after_commit");

        assertThat(retry.statusCode()).isEqualTo(201);
        assertThat(retry.<String>path("status")).isEqualTo("SUCCEEDED");
        assertThat(retry.<String>path("providerPaymentId")).isEqualTo(charge);
        assertThat(retry.<String>path("paymentId")).isNotEqualTo(unknown.path("paymentId"));
        assertThat(sandboxStatusesOf(orderId)).containsExactly("SUCCEEDED");
        assertThat(count(db, "SELECT count(*) FROM orders WHERE order_id = ? AND status = 'PAID'", orderId))
                .isEqualTo(1);
        assertThat(count(db, "SELECT count(*) FROM outbox_events WHERE aggregate_id = ? AND event_type = 'ORDER_PAID'",
                orderId)).isEqualTo(1);
        assertThat(pay(orderId, key, "tok_error_after_commit").header("Idempotent-Replayed")).isEqualTo("true");
    }

    @Test
    void aRequestWhoseOwnAttemptIsLostWhileTheProviderAnswersIsA503AndItsRetryAdoptsTheCharge() throws Exception {
        String orderId = newOrder();
        String key = UUID.randomUUID().toString();
        ExecutorService client = Executors.newSingleThreadExecutor();
        Future<Response> waiting = client.submit(() -> pay(orderId, key, "tok_timeout_after_commit"));
        await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(20)).until(() ->
                count(db, "SELECT count(*) FROM sandbox_payments WHERE order_id = ?", orderId) == 1);
        loseTheCommitsOf(single(db, String.class, "SELECT payment_id FROM payments WHERE order_id = ?", orderId));

        Response lost = waiting.get(30, TimeUnit.SECONDS);
        client.shutdown();
        Response retry = pay(orderId, key, "tok_timeout_after_commit");

        assertThat(lost.statusCode()).isEqualTo(503);
        assertThat(lost.header("Retry-After")).isEqualTo("1");
        assertThat(lost.<String>path("code")).isEqualTo("SERVICE_UNAVAILABLE");
        assertThat(retry.statusCode()).isEqualTo(201);
        assertThat(retry.<String>path("status")).isEqualTo("SUCCEEDED");
        assertThat(sandboxStatusesOf(orderId)).containsExactly("SUCCEEDED");
        assertThat(count(db, "SELECT count(*) FROM orders WHERE order_id = ? AND status = 'PAID'", orderId))
                .isEqualTo(1);
    }

    @Test
    void aLostChargeStillPendingIsAdoptedAsPendingAndNoSecondChargeIsMade() {
        String orderId = newOrder();
        Response pending = pay(orderId, UUID.randomUUID().toString(), "tok_pending");
        assertThat(pending.<String>path("status")).isEqualTo("PENDING");
        loseTheCommitsOf(pending.path("paymentId"));

        Response retry = pay(orderId, UUID.randomUUID().toString(), "tok_success");

        assertThat(retry.statusCode()).isEqualTo(201);
        assertThat(retry.<String>path("status")).isEqualTo("PENDING");
        assertThat(retry.<String>path("providerPaymentId")).isEqualTo(pending.path("providerPaymentId"));
        assertThat(sandboxStatusesOf(orderId)).containsExactly("PENDING");
    }

    @Test
    void aLostDeclineIsNotAdoptedAndTheRetryCharges() {
        String orderId = newOrder();
        Response declined = pay(orderId, UUID.randomUUID().toString(), "tok_decline");
        assertThat(declined.<String>path("status")).isEqualTo("FAILED");
        loseTheCommitsOf(declined.path("paymentId"));

        Response retry = pay(orderId, UUID.randomUUID().toString(), "tok_success");

        assertThat(retry.statusCode()).isEqualTo(201);
        assertThat(retry.<String>path("status")).isEqualTo("SUCCEEDED");
        assertThat(retry.<String>path("providerPaymentId")).isNotEqualTo(declined.path("providerPaymentId"));
        assertThat(sandboxStatusesOf(orderId)).containsExactlyInAnyOrder("FAILED", "SUCCEEDED");
    }
}
