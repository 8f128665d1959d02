package dev.onceguard.sandbox;

import dev.onceguard.platform.StandardWebhooksSignature;
import io.agroal.api.AgroalDataSource;
import io.quarkus.narayana.jta.QuarkusTransaction;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Timestamp;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static dev.onceguard.Database.execute;
import static dev.onceguard.sandbox.SandboxCalls.newOrderId;
import static dev.onceguard.sandbox.SandboxCalls.rows;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The sandbox's webhook worker, driven directly with an explicit target and clock. The events under test are due
 * ten years from now, so the scheduled run (real clock, configured URL) never touches them; whatever else is due is
 * delivered to the receiver first.
 */
@QuarkusTest
class SandboxDeliveryWorkerTest {

    @Inject
    SandboxDeliveryWorker worker;

    @Inject
    SandboxWebhooks webhooks;

    @Inject
    SandboxPaymentRows paymentRows;

    @Inject
    SandboxWebhookSecret secret;

    @Inject
    SandboxConfig config;

    @Inject
    AgroalDataSource db;

    private WebhookReceiver receiver;
    private Instant future;

    @BeforeEach
    void startReceiver() throws IOException {
        receiver = new WebhookReceiver();
        future = Instant.now().plus(Duration.ofDays(3650)).truncatedTo(ChronoUnit.MILLIS);
        while (worker.deliverDue(receiver.url(), at(future)).events() > 0) {
            // everything else that is due goes to the receiver first
        }
    }

    @AfterEach
    void stopReceiver() {
        receiver.close();
    }

    private static Clock at(Instant instant) {
        return Clock.fixed(instant, ZoneOffset.UTC);
    }

    /** A sandbox payment inserted directly, so that it comes without the deliveries its token would schedule. */
    private String newPayment(SandboxPayment.Status status) {
        String id = "sbx_test_" + UUID.randomUUID();
        execute(db, "INSERT INTO sandbox_payments (id, idempotency_key, request_fingerprint, status, amount, currency,"
                + " payment_method_token, order_id, metadata, created_at, updated_at)"
                + " VALUES (?, ?, 'test', ?, 1500.00, 'RUB', 'tok_success', ?, '{}', now(), now())",
                id, UUID.randomUUID().toString(), status.name(), newOrderId());
        return id;
    }

    private String schedule(String paymentId, SandboxEventType type, Instant dueAt, int copies) {
        return QuarkusTransaction.requiringNew().call(() ->
                webhooks.schedule(paymentRows.byId(paymentId).orElseThrow(), type, dueAt, copies));
    }

    /** Schedules an event about a fresh sandbox payment, due at {@code dueAt}. */
    private String scheduleEvent(SandboxEventType type, Instant dueAt, int copies) {
        return schedule(newPayment(SandboxPayment.Status.SUCCEEDED), type, dueAt, copies);
    }

    private Map<String, Object> delivery(String eventId) {
        return rows(db, "SELECT status, attempts, next_attempt_at, last_error, delivered_at, body"
                + " FROM sandbox_webhook_deliveries WHERE event_id = ?", eventId).get(0);
    }

    private static Instant instant(Object timestamp) {
        return ((Timestamp) timestamp).toInstant();
    }

    private void assertSigned(WebhookReceiver.Delivery delivery, Instant sentAt) {
        assertThatCode(() -> StandardWebhooksSignature.verify(delivery.headers(), delivery.body(), secret.value(), sentAt))
                .doesNotThrowAnyException();
    }

    @Test
    void postsTheEventSignedAndMarksItDelivered() {
        String eventId = scheduleEvent(SandboxEventType.SUCCEEDED, future, 1);

        SandboxDeliveryWorker.Run run = worker.deliverDue(receiver.url(), at(future));

        assertThat(run).isEqualTo(new SandboxDeliveryWorker.Run(1, 1, 0, 0));
        List<WebhookReceiver.Delivery> received = receiver.of(eventId);
        assertThat(received).hasSize(1);
        WebhookReceiver.Delivery delivery = received.get(0);
        Map<String, Object> row = delivery(eventId);
        assertThat(new String(delivery.body(), StandardCharsets.UTF_8)).isEqualTo(row.get("body"));
        assertThat(delivery.headers()).containsEntry("content-type", "application/json")
                .containsEntry("webhook-timestamp", Long.toString(future.getEpochSecond()));
        assertThat(delivery.headers().get("webhook-signature")).startsWith("v1,");
        assertSigned(delivery, future);
        assertThat(row.get("status")).isEqualTo("DELIVERED");
        assertThat(row.get("attempts")).isEqualTo(1);
        assertThat(instant(row.get("delivered_at"))).isEqualTo(future);
        assertThat(row.get("last_error")).isNull();
    }

    @Test
    void aSignatureMadeWithAnotherSecretDoesNotVerify() {
        String eventId = scheduleEvent(SandboxEventType.SUCCEEDED, future, 1);
        worker.deliverDue(receiver.url(), at(future));
        WebhookReceiver.Delivery delivery = receiver.of(eventId).get(0);

        assertThatThrownBy(() -> StandardWebhooksSignature.verify(delivery.headers(), delivery.body(),
                "whsec_b3RoZXItc2VjcmV0LW9mLWFub3RoZXItaW5zdGFsbA==", future))
                .isInstanceOf(StandardWebhooksSignature.Rejected.class);
    }

    @Test
    void retriesWithExponentialBackoffUntilTheReceiverAccepts() {
        String eventId = scheduleEvent(SandboxEventType.SUCCEEDED, future, 1);
        receiver.answer(d -> eventId.equals(d.eventId()) && receiver.of(eventId).size() <= 2 ? 500 : 200);
        Duration backoff = config.deliveryBackoff();

        worker.deliverDue(receiver.url(), at(future));
        Map<String, Object> afterFirst = delivery(eventId);
        worker.deliverDue(receiver.url(), at(future.plus(backoff).minusMillis(1)));
        int beforeDue = receiver.of(eventId).size();
        worker.deliverDue(receiver.url(), at(future.plus(backoff)));
        Map<String, Object> afterSecond = delivery(eventId);
        worker.deliverDue(receiver.url(), at(future.plus(backoff.multipliedBy(3))));
        Map<String, Object> afterThird = delivery(eventId);

        assertThat(afterFirst.get("status")).isEqualTo("PENDING");
        assertThat(afterFirst.get("attempts")).isEqualTo(1);
        assertThat(afterFirst.get("last_error")).isEqualTo("HTTP 500");
        assertThat(instant(afterFirst.get("next_attempt_at"))).isEqualTo(future.plus(backoff));
        assertThat(beforeDue).isEqualTo(1);
        assertThat(afterSecond.get("attempts")).isEqualTo(2);
        assertThat(instant(afterSecond.get("next_attempt_at"))).isEqualTo(future.plus(backoff).plus(backoff.multipliedBy(2)));
        assertThat(afterThird.get("status")).isEqualTo("DELIVERED");
        assertThat(afterThird.get("attempts")).isEqualTo(3);
        List<WebhookReceiver.Delivery> received = receiver.of(eventId);
        assertThat(received).hasSize(3);
        assertThat(received).extracting(d -> new String(d.body(), StandardCharsets.UTF_8)).containsOnly((String) afterThird.get("body"));
        assertSigned(received.get(2), future.plus(backoff.multipliedBy(3)));
    }

    @Test
    void givesUpAfterTheConfiguredAttemptsAndKeepsTheDeliveryAsDead() {
        String eventId = scheduleEvent(SandboxEventType.SUCCEEDED, future, 1);
        receiver.answer(d -> eventId.equals(d.eventId()) ? 503 : 200);
        int maxAttempts = config.deliveryMaxAttempts();

        Instant now = future;
        for (int attempt = 1; attempt <= maxAttempts; attempt++) {
            SandboxDeliveryWorker.Run run = worker.deliverDue(receiver.url(), at(now));
            assertThat(run.events()).isEqualTo(1);
            if (attempt < maxAttempts) {
                assertThat(run.retrying()).isEqualTo(1);
                Instant next = instant(delivery(eventId).get("next_attempt_at"));
                assertThat(Duration.between(now, next)).isEqualTo(worker.backoff(attempt));
                now = next;
            } else {
                assertThat(run.dead()).isEqualTo(1);
            }
        }
        SandboxDeliveryWorker.Run afterwards = worker.deliverDue(receiver.url(), at(now.plus(Duration.ofDays(30))));

        Map<String, Object> row = delivery(eventId);
        assertThat(row.get("status")).isEqualTo("DEAD");
        assertThat(row.get("attempts")).isEqualTo(maxAttempts);
        assertThat(row.get("last_error")).isEqualTo("HTTP 503");
        assertThat(afterwards.events()).isZero();
        assertThat(receiver.of(eventId)).hasSize(maxAttempts);
    }

    @Test
    void anUnreachableReceiverIsRetriedLikeAnError() throws IOException {
        String eventId = scheduleEvent(SandboxEventType.SUCCEEDED, future, 1);
        URI closed;
        try (ServerSocket socket = new ServerSocket(0)) {
            closed = URI.create("http://127.0.0.1:" + socket.getLocalPort() + "/webhooks/sandbox");
        }

        SandboxDeliveryWorker.Run run = worker.deliverDue(closed, at(future));

        assertThat(run).isEqualTo(new SandboxDeliveryWorker.Run(1, 0, 1, 0));
        Map<String, Object> row = delivery(eventId);
        assertThat(row.get("status")).isEqualTo("PENDING");
        assertThat((String) row.get("last_error")).startsWith("ConnectException");
        assertThat(instant(row.get("next_attempt_at"))).isEqualTo(future.plus(config.deliveryBackoff()));
    }

    @Test
    void sendsTheCopiesOfADuplicatedEventConcurrently() {
        String eventId = scheduleEvent(SandboxEventType.SUCCEEDED, future, SandboxToken.DUPLICATE_COPIES);
        CountDownLatch allInFlight = new CountDownLatch(SandboxToken.DUPLICATE_COPIES);
        receiver.answer(d -> {
            if (!eventId.equals(d.eventId())) {
                return 200;
            }
            allInFlight.countDown();
            try {
                return allInFlight.await(3, TimeUnit.SECONDS) ? 200 : 500;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return 500;
            }
        });

        SandboxDeliveryWorker.Run run = worker.deliverDue(receiver.url(), at(future));

        assertThat(run).isEqualTo(new SandboxDeliveryWorker.Run(1, 3, 0, 0));
        assertThat(receiver.of(eventId)).hasSize(3);
        assertThat(rows(db, "SELECT status FROM sandbox_webhook_deliveries WHERE event_id = ?", eventId))
                .extracting(r -> r.get("status")).containsExactly("DELIVERED", "DELIVERED", "DELIVERED");
    }

    @Test
    void aCopyAnotherReplicaHoldsIsLeftToItInsteadOfWaitedFor() throws Exception {
        String eventId = scheduleEvent(SandboxEventType.SUCCEEDED, future, SandboxToken.DUPLICATE_COPIES);
        try (Connection otherReplica = db.getConnection()) {
            otherReplica.setAutoCommit(false);
            try (PreparedStatement claim = otherReplica.prepareStatement(
                    "SELECT id FROM sandbox_webhook_deliveries WHERE event_id = ? AND copy = 2 FOR UPDATE")) {
                claim.setString(1, eventId);
                claim.executeQuery().close();
            }
            try {
                CompletableFuture<SandboxDeliveryWorker.Run> run =
                        CompletableFuture.supplyAsync(() -> worker.deliverDue(receiver.url(), at(future)));

                assertThat(run.get(10, TimeUnit.SECONDS)).isEqualTo(new SandboxDeliveryWorker.Run(1, 2, 0, 0));
            } finally {
                otherReplica.rollback();
            }
        }
        assertThat(rows(db, "SELECT status FROM sandbox_webhook_deliveries WHERE event_id = ? ORDER BY copy", eventId))
                .extracting(r -> r.get("status")).containsExactly("DELIVERED", "PENDING", "DELIVERED");
    }

    @Test
    void sendsEventsInTheOrderTheyFallDue() {
        String paymentId = newPayment(SandboxPayment.Status.SUCCEEDED);
        String stale = schedule(paymentId, SandboxEventType.PENDING, future.plus(config.staleEventDelay()), 1);
        String succeeded = schedule(paymentId, SandboxEventType.SUCCEEDED, future, 1);

        SandboxDeliveryWorker.Run run = worker.deliverDue(receiver.url(), at(future.plus(config.staleEventDelay())));

        assertThat(run.events()).isEqualTo(2);
        assertThat(receiver.all()).extracting(WebhookReceiver.Delivery::eventId)
                .filteredOn(id -> id.equals(succeeded) || id.equals(stale)).containsExactly(succeeded, stale);
    }

    @Test
    void aDueSucceededEventSettlesAPendingSandboxPayment() {
        String paymentId = newPayment(SandboxPayment.Status.PENDING);
        schedule(paymentId, SandboxEventType.SUCCEEDED, future, 1);

        worker.deliverDue(receiver.url(), at(future));

        assertThat(rows(db, "SELECT status FROM sandbox_payments WHERE id = ?", paymentId).get(0).get("status"))
                .isEqualTo("SUCCEEDED");
    }
}
