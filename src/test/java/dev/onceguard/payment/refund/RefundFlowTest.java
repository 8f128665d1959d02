package dev.onceguard.payment.refund;

import dev.onceguard.PaidOrders;
import dev.onceguard.SandboxWebhooks;
import dev.onceguard.TestTokens;
import dev.onceguard.maintenance.LeaseRecovery;
import io.agroal.api.AgroalDataSource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.Response;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static dev.onceguard.Database.count;
import static dev.onceguard.Database.execute;
import static dev.onceguard.Database.single;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** Refunding payments through the API and the built-in sandbox provider, over HTTP like any external provider. */
@QuarkusTest
class RefundFlowTest {

    @Inject
    AgroalDataSource db;

    @Inject
    SandboxWebhooks webhooks;

    @Inject
    PaidOrders relay;

    @Inject
    LeaseRecovery leaseRecovery;

    private final String customer = TestTokens.newUser();
    private final String support = "support-tool-" + UUID.randomUUID();

    private String newOrder(String productId) {
        return given().header("Authorization", TestTokens.bearer(customer))
                .header("Idempotency-Key", UUID.randomUUID().toString()).contentType("application/json")
                .body("{\"items\":[{\"productId\":\"" + productId + "\",\"quantity\":1}],\"currency\":\"RUB\"}")
                .post("/api/orders").then().statusCode(201).extract().path("orderId");
    }

    /**
     * A paid order of the e-book (1500.00, digital); returns the payment id. On a machine too busy for the sandbox to
     * answer within the provider timeout the payment is UNKNOWN (202) and the client retries with the same key, as the
     * contract says, until its deadline.
     */
    private String paidPayment(String token) {
        String orderId = newOrder("p-184");
        String key = UUID.randomUUID().toString();
        Response paid = await().alias("order " + orderId + " paid").atMost(Duration.ofSeconds(60))
                .pollInSameThread().pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(500))
                .until(() -> pay(orderId, key, token), answer -> answer.statusCode() == 201);
        return paid.path("paymentId");
    }

    private Response pay(String orderId, String key, String token) {
        return given().header("Authorization", TestTokens.bearer(customer)).header("Idempotency-Key", key)
                .contentType("application/json").body("{\"paymentMethodToken\":\"" + token + "\"}")
                .post("/api/orders/" + orderId + "/payments");
    }

    private Response refund(String authorization, String paymentId, String key, String body) {
        return given().header("Authorization", authorization).header("Idempotency-Key", key)
                .contentType("application/json").body(body).post("/api/payments/" + paymentId + "/refunds");
    }

    private Response refund(String paymentId, String key, String body) {
        return refund(TestTokens.refunds(support), paymentId, key, body);
    }

    private String orderOf(String paymentId) {
        return single(db, String.class, "SELECT order_id FROM payments WHERE payment_id = ?", paymentId);
    }

    private String providerPaymentOf(String paymentId) {
        return single(db, String.class, "SELECT provider_payment_id FROM payments WHERE payment_id = ?", paymentId);
    }

    private List<String> sandboxRefundStatuses(String paymentId) {
        return given().get("/sandbox/v1/refunds?payment=" + providerPaymentOf(paymentId)).then().statusCode(200)
                .extract().path("data.status");
    }

    @Test
    void aFullRefundIsReplayedByteForByteAndTakesTheOrdersEffectsBackOnce() {
        String paymentId = paidPayment("tok_success");
        String orderId = orderOf(paymentId);
        relay.relayUntilIdle();
        String key = UUID.randomUUID().toString();

        Response refunded = refund(paymentId, key, "{\"reason\":\"DUPLICATE\",\"note\":\"ticket 4711\"}");
        Response replay = refund(paymentId, key, "{\"note\":\"ticket 4711\", \"reason\":\"DUPLICATE\"}");
        webhooks.deliverDue();
        relay.relayUntilIdle();

        assertThat(refunded.statusCode()).isEqualTo(201);
        assertThat(refunded.<String>path("refundId")).startsWith("ref_");
        assertThat(refunded.<String>path("amount")).isEqualTo("1500.00");
        assertThat(refunded.<String>path("status")).isEqualTo("SUCCEEDED");
        assertThat(refunded.<String>path("reason")).isEqualTo("DUPLICATE");
        assertThat(replay.statusCode()).isEqualTo(201);
        assertThat(replay.header("Idempotent-Replayed")).isEqualTo("true");
        assertThat(replay.asByteArray()).isEqualTo(refunded.asByteArray());
        assertThat(sandboxRefundStatuses(paymentId)).containsExactly("SUCCEEDED");
        assertThat(single(db, String.class, "SELECT status FROM orders WHERE order_id = ?", orderId))
                .isEqualTo("REFUNDED");
        assertThat(count(db, "SELECT count(*) FROM licenses WHERE order_id = ? AND revoked_at IS NOT NULL", orderId))
                .isEqualTo(1);
        assertThat(count(db, "SELECT coalesce(sum(points), 0) FROM loyalty_ledger WHERE order_id = ?", orderId))
                .isZero();
        assertThat(count(db, "SELECT count(*) FROM notifications WHERE order_id = ? AND kind = 'REFUND_CONFIRMATION'",
                orderId)).isEqualTo(1);
        Response payment = given().header("Authorization", TestTokens.bearer(customer)).get("/api/payments/" + paymentId);
        assertThat(payment.<String>path("refundedAmount")).isEqualTo("1500.00");
        assertThat(payment.<List<String>>path("refunds.refundId")).containsExactly(refunded.<String>path("refundId"));
        given().header("Authorization", TestTokens.bearer(customer)).get("/api/orders/" + orderId).then()
                .statusCode(200).extract().<List<Object>>path("fulfilment.licenses").isEmpty();
    }

    @Test
    void aDuplicatedRefundSucceededRevokesOneLicense() {
        String paymentId = paidPayment("tok_success");
        String orderId = orderOf(paymentId);
        relay.relayUntilIdle();
        String refundId = refund(paymentId, UUID.randomUUID().toString(), "{\"reason\":\"REQUESTED_BY_CUSTOMER\"}")
                .then().statusCode(201).extract().path("refundId");
        String eventId = single(db, String.class, "SELECT event_id FROM sandbox_webhook_deliveries"
                + " WHERE event_type = 'refund.succeeded' AND body LIKE ?", "%" + refundId + "%");
        webhooks.deliverDue();
        // the same event delivered again, and a second event reporting the same fact under another id
        // due a second ago: the worker reads the time to the millisecond, now() to the microsecond
        execute(db, "UPDATE sandbox_webhook_deliveries SET status = 'PENDING',"
                + " next_attempt_at = now() - interval '1 second' WHERE event_id = ?", eventId);
        execute(db, "INSERT INTO sandbox_webhook_deliveries (event_id, copy, payment_id, event_type, body, due_at,"
                + " next_attempt_at, created_at) SELECT 'evt_again_' || event_id, 1, payment_id, event_type,"
                + " replace(body, event_id, 'evt_again_' || event_id), now(), now() - interval '1 second', now()"
                + " FROM sandbox_webhook_deliveries WHERE event_id = ?", eventId);
        webhooks.deliverDue();
        relay.relayUntilIdle();

        assertThat(count(db, "SELECT count(*) FROM webhook_inbox WHERE event_id IN (?, ?) AND status IN"
                + " ('PROCESSED', 'IGNORED')", eventId, "evt_again_" + eventId)).isEqualTo(2);
        assertThat(count(db, "SELECT delivery_count FROM webhook_inbox WHERE event_id = ?", eventId)).isEqualTo(2);
        assertThat(count(db, "SELECT count(*) FROM state_transitions WHERE subject_type = 'refund' AND subject_id = ?"
                + " AND to_status = 'SUCCEEDED'", refundId)).isEqualTo(1);
        assertThat(count(db, "SELECT count(*) FROM outbox_events WHERE aggregate_id = ? AND event_type = 'ORDER_REFUNDED'",
                orderId)).isEqualTo(1);
        assertThat(count(db, "SELECT count(*) FROM licenses WHERE order_id = ? AND revoked_at IS NOT NULL", orderId))
                .isEqualTo(1);
        assertThat(count(db, "SELECT count(*) FROM loyalty_ledger WHERE order_id = ? AND points < 0", orderId))
                .isEqualTo(1);
    }

    @Test
    void theSameKeyWithAnotherAmountIsRefused() {
        String paymentId = paidPayment("tok_success");
        String key = UUID.randomUUID().toString();
        refund(paymentId, key, "{\"amount\":\"100.00\",\"reason\":\"OTHER\"}").then().statusCode(201);

        Response reused = refund(paymentId, key, "{\"amount\":\"200.00\",\"reason\":\"OTHER\"}");

        assertThat(reused.statusCode()).isEqualTo(422);
        assertThat(reused.<String>path("code")).isEqualTo("IDEMPOTENCY_KEY_REUSED");
        assertThat(sandboxRefundStatuses(paymentId)).hasSize(1);
    }

    @Test
    void aCustomersOwnTokenIsForbiddenAndReachesNoProvider() {
        String paymentId = paidPayment("tok_success");

        Response forbidden = refund(TestTokens.bearer(customer), paymentId, UUID.randomUUID().toString(),
                "{\"reason\":\"REQUESTED_BY_CUSTOMER\"}");

        assertThat(forbidden.statusCode()).isEqualTo(403);
        assertThat(forbidden.<String>path("code")).isEqualTo("FORBIDDEN");
        assertThat(count(db, "SELECT count(*) FROM refunds WHERE payment_id = ?", paymentId)).isZero();
        assertThat(count(db, "SELECT count(*) FROM idempotency_records WHERE user_id = ? AND operation = ?", customer,
                RefundService.OPERATION)).isZero();
        assertThat(sandboxRefundStatuses(paymentId)).isEmpty();
    }

    @Test
    void tenRefundsOfSixtyPercentRacingGiveOneSuccessAndTheSandboxHoldsOne() throws Exception {
        String paymentId = paidPayment("tok_success");
        int racers = 10;
        CyclicBarrier barrier = new CyclicBarrier(racers);
        ExecutorService pool = Executors.newFixedThreadPool(racers);
        List<Future<Response>> answers = new ArrayList<>();
        for (int i = 0; i < racers; i++) {
            answers.add(pool.submit(() -> {
                barrier.await();
                return refund(paymentId, UUID.randomUUID().toString(), "{\"amount\":\"900.00\",\"reason\":\"OTHER\"}");
            }));
        }
        List<String> outcomes = new ArrayList<>();
        for (Future<Response> answer : answers) {
            Response response = answer.get();
            outcomes.add(response.statusCode() + " " + (response.statusCode() == 201 ? response.path("status")
                    : response.path("code")));
        }
        pool.shutdown();

        assertThat(outcomes).containsOnlyOnce("201 SUCCEEDED");
        assertThat(outcomes.stream().filter("409 REFUND_EXCEEDS_PAYMENT"::equals)).hasSize(racers - 1);
        assertThat(sandboxRefundStatuses(paymentId)).containsExactly("SUCCEEDED");
        assertThat(count(db, "SELECT count(*) FROM refunds WHERE payment_id = ?", paymentId)).isEqualTo(1);
    }

    @Test
    void partialRefundsAddUpToThePaymentExactlyAndOneCentMoreIsRefused() {
        String paymentId = paidPayment("tok_success");
        String orderId = orderOf(paymentId);

        String statusBefore = single(db, String.class, "SELECT status FROM orders WHERE order_id = ?", orderId);
        Response first = refund(paymentId, UUID.randomUUID().toString(), "{\"amount\":\"500.00\",\"reason\":\"OTHER\"}");
        String statusAfterPartial = single(db, String.class, "SELECT status FROM orders WHERE order_id = ?", orderId);
        String refundedAfterPartial = given().header("Authorization", TestTokens.refunds(support))
                .get("/api/payments/" + paymentId).path("refundedAmount");
        Response rest = refund(paymentId, UUID.randomUUID().toString(), "{\"reason\":\"OTHER\"}");
        Response oneCentMore = refund(paymentId, UUID.randomUUID().toString(),
                "{\"amount\":\"0.01\",\"reason\":\"OTHER\"}");

        assertThat(first.<String>path("status")).isEqualTo("SUCCEEDED");
        assertThat(statusAfterPartial).isEqualTo(statusBefore).isIn("PAID", "FULFILLED");
        assertThat(refundedAfterPartial).isEqualTo("500.00");
        assertThat(rest.statusCode()).isEqualTo(201);
        assertThat(rest.<String>path("amount")).isEqualTo("1000.00");
        assertThat(oneCentMore.statusCode()).isEqualTo(409);
        assertThat(oneCentMore.<String>path("code")).isEqualTo("REFUND_EXCEEDS_PAYMENT");
        assertThat(single(db, String.class, "SELECT status FROM orders WHERE order_id = ?", orderId))
                .isEqualTo("REFUNDED");
        assertThat(sandboxRefundStatuses(paymentId)).containsExactly("SUCCEEDED", "SUCCEEDED");
    }

    @Test
    void aRefundThatFailsGivesItsReservationBack() {
        String paymentId = paidPayment("tok_refund_fails");
        String statusBefore = single(db, String.class, "SELECT status FROM orders WHERE order_id = ?", orderOf(paymentId));

        Response failed = refund(paymentId, UUID.randomUUID().toString(), "{\"reason\":\"OTHER\"}");

        assertThat(failed.statusCode()).isEqualTo(201);
        assertThat(failed.<String>path("status")).isEqualTo("FAILED");
        assertThat(count(db, "SELECT count(*) FROM payments WHERE payment_id = ? AND refund_reserved = 0"
                + " AND refunded_amount = 0", paymentId)).isEqualTo(1);
        assertThat(single(db, String.class, "SELECT status FROM orders WHERE order_id = ?", orderOf(paymentId)))
                .isEqualTo(statusBefore);
    }

    @Test
    void aPaymentThatDidNotSucceedIsNotRefundable() {
        String orderId = newOrder("p-184");
        String paymentId = given().header("Authorization", TestTokens.bearer(customer))
                .header("Idempotency-Key", UUID.randomUUID().toString()).contentType("application/json")
                .body("{\"paymentMethodToken\":\"tok_decline\"}").post("/api/orders/" + orderId + "/payments")
                .then().statusCode(201).extract().path("paymentId");

        Response refused = refund(paymentId, UUID.randomUUID().toString(), "{\"reason\":\"OTHER\"}");
        Response unknown = refund("pay_unknown", UUID.randomUUID().toString(), "{\"reason\":\"OTHER\"}");

        assertThat(refused.statusCode()).isEqualTo(409);
        assertThat(refused.<String>path("code")).isEqualTo("PAYMENT_NOT_REFUNDABLE");
        assertThat(unknown.statusCode()).isEqualTo(404);
        assertThat(unknown.<String>path("code")).isEqualTo("PAYMENT_NOT_FOUND");
    }

    @Test
    void aRefundWhoseProviderCallTimesOutIsSettledByItsWebhook() {
        String paymentId = paidPayment("tok_refund_timeout");
        String key = UUID.randomUUID().toString();

        Response unknown = refund(paymentId, key, "{\"reason\":\"OTHER\"}");
        webhooks.deliverDueWithin(Duration.ofSeconds(10));
        Response retry = refund(paymentId, key, "{\"reason\":\"OTHER\"}");

        assertThat(unknown.statusCode()).isEqualTo(202);
        assertThat(unknown.<String>path("status")).isEqualTo("UNKNOWN");
        assertThat(unknown.header("Retry-After")).isNotBlank();
        assertThat(retry.statusCode()).isEqualTo(201);
        assertThat(retry.header("Idempotent-Replayed")).isEqualTo("true");
        assertThat(retry.<String>path("status")).isEqualTo("SUCCEEDED");
        assertThat(retry.<String>path("refundId")).isEqualTo(unknown.path("refundId"));
        assertThat(sandboxRefundStatuses(paymentId)).containsExactly("SUCCEEDED");
        assertThat(single(db, String.class, "SELECT status FROM orders WHERE order_id = ?", orderOf(paymentId)))
                .isEqualTo("REFUNDED");
    }

    @Test
    void aRefundWhoseProviderCallTimesOutIsSettledByLeaseRecoveryWithoutItsWebhook() {
        String paymentId = paidPayment("tok_refund_timeout");
        String key = UUID.randomUUID().toString();

        Response unknown = refund(paymentId, key, "{\"amount\":\"300.00\",\"reason\":\"OTHER\"}");
        leaseRecovery.runNow();
        Response retry = refund(paymentId, key, "{\"amount\":\"300.00\",\"reason\":\"OTHER\"}");

        assertThat(unknown.statusCode()).isEqualTo(202);
        assertThat(count(db, "SELECT count(*) FROM state_transitions WHERE subject_type = 'refund' AND subject_id = ?"
                + " AND to_status = 'SUCCEEDED' AND cause = 'lease_recovery'", unknown.<String>path("refundId")))
                .isEqualTo(1);
        assertThat(retry.statusCode()).isEqualTo(201);
        assertThat(retry.header("Idempotent-Replayed")).isEqualTo("true");
        assertThat(retry.<String>path("status")).isEqualTo("SUCCEEDED");
        assertThat(sandboxRefundStatuses(paymentId)).containsExactly("SUCCEEDED");
        assertThat(given().header("Authorization", TestTokens.bearer(customer)).get("/api/payments/" + paymentId)
                .<String>path("refundedAmount")).isEqualTo("300.00");
    }

    /**
     * What a process killed right after the sandbox made the refund leaves behind: the reservation, the refund PENDING
     * with no provider answer, the record PROCESSING at {@code refund_reserved} with its lease run out, and the refund
     * already at the provider under its key. Lease recovery resumes it with the same key: one refund at the provider.
     */
    @Test
    void aRefundWhoseProcessDiedAfterTheProviderCallEndsInOneRefundAfterLeaseRecovery() {
        String paymentId = paidPayment("tok_success");
        String refundId = "ref_killed" + UUID.randomUUID().toString().replace("-", "").substring(0, 16);
        String key = UUID.randomUUID().toString();
        execute(db, "UPDATE payments SET refund_reserved = 400.00 WHERE payment_id = ?", paymentId);
        execute(db, """
                INSERT INTO idempotency_records (user_id, operation, idempotency_key, fingerprint, status, recovery_point,
                    lease_expires_at, resource_type, resource_id, request_id, created_at, expires_at)
                VALUES (?, 'create-refund', ?, ?, 'PROCESSING', 'refund_reserved', now() - interval '1 minute',
                        'refund', ?, 'killed', now(), now() + interval '24 hours')""",
                support, key, "c".repeat(64), refundId);
        long recordId = count(db, "SELECT id FROM idempotency_records WHERE user_id = ? AND idempotency_key = ?",
                support, key);
        execute(db, """
                INSERT INTO refunds (refund_id, payment_id, order_id, requested_by, status, amount, currency, reason,
                    provider, provider_idempotency_key, idempotency_record_id, created_at, updated_at)
                VALUES (?, ?, ?, ?, 'PENDING', 400.00, 'RUB', 'OTHER', 'sandbox', ?, ?, now(), now())""",
                refundId, paymentId, orderOf(paymentId), support, "onceguard-" + refundId, recordId);
        given().header("Idempotency-Key", "onceguard-" + refundId).contentType("application/json")
                .body("{\"payment\":\"" + providerPaymentOf(paymentId) + "\",\"amount\":\"400.00\",\"currency\":\"RUB\","
                        + "\"metadata\":{\"refund_id\":\"" + refundId + "\",\"payment_id\":\"" + paymentId + "\"}}")
                .post("/sandbox/v1/refunds").then().statusCode(201);

        leaseRecovery.runNow();

        assertThat(single(db, String.class, "SELECT status FROM refunds WHERE refund_id = ?", refundId))
                .isEqualTo("SUCCEEDED");
        assertThat(count(db, "SELECT count(*) FROM idempotency_records WHERE id = ? AND status = 'COMPLETED'"
                + " AND response_status = 201", recordId)).isEqualTo(1);
        assertThat(sandboxRefundStatuses(paymentId)).as("asked again with the same key, not refunded twice")
                .containsExactly("SUCCEEDED");
        assertThat(count(db, "SELECT count(*) FROM payments WHERE payment_id = ? AND refund_reserved = 400.00"
                + " AND refunded_amount = 400.00", paymentId)).isEqualTo(1);
    }
}
