package dev.onceguard.console;

import dev.onceguard.SandboxWebhooks;
import dev.onceguard.Database;
import dev.onceguard.TestTokens;
import dev.onceguard.idempotency.RequestLog;
import dev.onceguard.maintenance.LeaseRecovery;
import dev.onceguard.platform.StandardWebhooksSignature;
import io.agroal.api.AgroalDataSource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.Response;
import jakarta.inject.Inject;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.Objects;

import static dev.onceguard.Database.execute;
import static dev.onceguard.console.ConsoleClient.ADMIN;
import static dev.onceguard.console.ConsoleClient.form;
import static dev.onceguard.console.ConsoleClient.post;
import static dev.onceguard.console.InvestigationPages.ONE_EBOOK;
import static dev.onceguard.console.InvestigationPages.createOrder;
import static dev.onceguard.console.InvestigationPages.page;
import static dev.onceguard.console.InvestigationPages.verdict;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The complaints that used to read green "sent once" on the operation page, played through the real API and the
 * sandbox provider with lease recovery and reconciliation switched off (the test profile): each payment's
 * transitions name what moved them, the timeline says what the client was really answered, and the verdict
 * names the path.
 */
@QuarkusTest
class PaymentStoryTest {

    @Inject
    AgroalDataSource db;

    @Inject
    ConsoleReads sql;

    @Inject
    LeaseRecovery leaseRecovery;

    @Inject
    RequestLog requestLog;

    @Inject
    SandboxWebhooks sandboxWebhooks;


    @ConfigProperty(name = "onceguard.webhooks.sandbox.secret")
    String sandboxSecret;

    private final String user = TestTokens.newUser();

    private String newOrder() {
        return createOrder(user, UUID.randomUUID().toString(), ONE_EBOOK).then().statusCode(201).extract().path("orderId");
    }

    private Response pay(String orderId, String key, String token, String requestId) {
        return given().header("Authorization", TestTokens.bearer(user)).header("Idempotency-Key", key)
                .header("X-Request-Id", requestId)
                .contentType("application/json").body("{\"paymentMethodToken\":\"" + token + "\"}")
                .post("/api/orders/" + orderId + "/payments");
    }

    private String text(String query, Object... parameters) {
        return sql.one(query, row -> row.getString(1), parameters).orElse(null);
    }

    private List<String> causes(String paymentId) {
        return sql.list("""
                        SELECT from_status || '>' || to_status || ' ' || cause || ' ' || coalesce(cause_ref, '-')
                          FROM state_transitions WHERE subject_type = 'payment' AND subject_id = ? ORDER BY id""",
                row -> row.getString(1), paymentId);
    }

    private long recordOf(String paymentId) {
        return Database.count(db, "SELECT idempotency_record_id FROM payments WHERE payment_id = ?", paymentId);
    }

    /**
     * Delivers the sandbox's webhooks (its delivery job is off in tests) until the payment reaches {@code status}: a
     * {@code tok_timeout_after_commit} payment's webhook is written when its late answer is sent, seconds later.
     */
    private String awaitPaymentStatus(String paymentId, String status) {
        return await().pollInSameThread()
                .alias("payment " + paymentId + " reaches " + status).atMost(Duration.ofSeconds(30))
                .until(() -> {
                    String current = text("SELECT status FROM payments WHERE payment_id = ?", paymentId);
                    if (!status.equals(current)) {
                        sandboxWebhooks.deliverDueWithin(Duration.ofMinutes(5));
                    }
                    return current;
                }, status::equals);
    }

    private int sandboxChargesOf(String orderId) {
        return given().get("/sandbox/v1/payments?orderId=" + orderId).then().statusCode(200).extract()
                .<List<Object>>path("data").size();
    }

    @Test
    void aProviderTimeoutIsSettledByItsWebhookWithReconciliationOffAndThePageSaysSo() throws Exception {
        String orderId = newOrder();
        String key = UUID.randomUUID().toString();
        String clientRequestId = "req-timeout-" + UUID.randomUUID();

        Response unknown = pay(orderId, key, "tok_timeout_after_commit", clientRequestId);
        String requestId = unknown.header("X-Request-Id");
        String paymentId = unknown.path("paymentId");
        awaitPaymentStatus(paymentId, "SUCCEEDED");
        Response retry = pay(orderId, key, "tok_timeout_after_commit", "req-retry-" + UUID.randomUUID());

        assertThat(unknown.statusCode()).isEqualTo(202);
        assertThat(unknown.<String>path("status")).isEqualTo("UNKNOWN");
        String eventId = text("SELECT event_id FROM webhook_inbox WHERE payment_id = ? AND status = 'PROCESSED'", paymentId);
        assertThat(causes(paymentId)).containsExactly("CREATED>UNKNOWN provider_answer " + requestId,
                "UNKNOWN>SUCCEEDED webhook " + eventId);
        assertThat(retry.statusCode()).as("the webhook finished the operation: the retry replays").isEqualTo(201);
        assertThat(retry.header("Idempotent-Replayed")).isEqualTo("true");
        assertThat(retry.<String>path("status")).isEqualTo("SUCCEEDED");
        assertThat(sandboxChargesOf(orderId)).isEqualTo(1);

        requestLog.flush();
        String html = page("/console/operations/" + recordOf(paymentId), 200);
        assertThat(verdict(html)).containsPattern("The provider did not answer in time; the payment was UNKNOWN for "
                        + "\\d+(\\.\\d)? s until its payment.succeeded webhook settled it: one charge. The client was "
                        + "answered 202 UNKNOWN after \\d\\.\\d s; the provider’s webhook \\(event " + eventId
                        + "\\) finished the operation.")
                .doesNotContain("sent once");
        assertThat(text("SELECT finished_by || ' ' || finished_by_ref || ' ' || first_answer_status"
                + " FROM idempotency_records WHERE id = ?", recordOf(paymentId)))
                .as("the record keeps what finished it and what its first request was answered")
                .isEqualTo("webhook " + eventId + " 202");
        assertThat(html).contains("class=\"verdict warn\"")
                .contains("Request " + requestId + " answered 202 UNKNOWN")
                .contains("replayed the stored 201")
                .contains("Operation finished by the provider’s webhook (event " + eventId + "): stored answer 201")
                .contains("href=\"/console/search?q=" + eventId + "\"")
                .contains("payment.succeeded webhook, event " + eventId)
                .doesNotContain("Answered 201");
    }

    @Test
    void aCrashBetweenThePhasesIsFinishedByLeaseRecoveryAndThePageSaysTheClientGotNoAnswer() {
        String orderId = newOrder();
        String paymentId = "pay_" + UUID.randomUUID();
        // phase (a) committed, then the process died before it called the provider: no answer was ever sent
        execute(db, """
                INSERT INTO payments (payment_id, order_id, user_id, status, amount, currency, provider,
                    provider_idempotency_key, payment_method_token, created_at, updated_at)
                SELECT ?, order_id, user_id, 'CREATED', total, currency, 'sandbox', ?, 'tok_success',
                       now() - interval '2 minutes', now() - interval '2 minutes'
                  FROM orders WHERE order_id = ?""", paymentId, "onceguard-" + paymentId, orderId);
        long recordId = MachinerySeeds.processing(db, user, "create-payment", UUID.randomUUID().toString(),
                "payment_created", paymentId, true);

        leaseRecovery.runNow();

        long runId = Database.count(db, "SELECT max(id) FROM job_runs WHERE job = 'lease-recovery'");
        assertThat(causes(paymentId)).containsExactly("CREATED>SUCCEEDED lease_recovery " + runId);
        assertThat(text("SELECT status || ' ' || response_status FROM idempotency_records WHERE id = ?", recordId))
                .isEqualTo("COMPLETED 201");
        assertThat(sandboxChargesOf(orderId)).isEqualTo(1);

        String html = page("/console/operations/" + recordId, 200);
        assertThat(verdict(html)).containsPattern("The process died before answering; lease recovery "
                + "\\(run " + runId + "\\) finished it \\d+ (s|min) later with the provider’s own answer: one charge.");
        assertThat(html).contains("class=\"verdict warn\"")
                .contains("Request req-seed: no answer recorded")
                .contains("id=\"lost-request\"")
                .contains("lease recovery, run " + runId)
                .contains("href=\"/console/jobs?job=lease-recovery\"");
    }

    @Test
    void anAdminsSendToReconciliationSettlesAnUnknownPaymentAndItsAuditEntryIsNamed() {
        String orderId = newOrder();
        String paymentId = "pay_" + UUID.randomUUID();
        // the provider was unreachable: the payment is UNKNOWN and the provider never saw it
        execute(db, """
                INSERT INTO payments (payment_id, order_id, user_id, status, amount, currency, provider,
                    provider_idempotency_key, payment_method_token, created_at, updated_at)
                SELECT ?, order_id, user_id, 'UNKNOWN', total, currency, 'sandbox', ?, 'tok_success', now(), now()
                  FROM orders WHERE order_id = ?""", paymentId, "onceguard-" + paymentId, orderId);
        execute(db, """
                INSERT INTO state_transitions (subject_type, subject_id, from_status, to_status, cause, cause_ref, occurred_at)
                VALUES ('payment', ?, 'CREATED', 'UNKNOWN', 'provider_answer', 'req-seed', now() - interval '90 seconds')""",
                paymentId);
        long recordId = MachinerySeeds.processing(db, user, "create-payment", UUID.randomUUID().toString(),
                "outcome_unknown", paymentId, true);
        // as the engine leaves it when it pauses a payment at outcome_unknown: the first request was answered 202
        execute(db, "UPDATE idempotency_records SET first_answer_status = 202, first_answered_at = created_at "
                + "+ interval '2 seconds' WHERE id = ?", recordId);

        Response done = post(ADMIN, "/console/stuck/" + recordId + "/reconcile", form(ADMIN, "/console/stuck"));

        assertThat(done.statusCode()).isEqualTo(303);
        long auditId = Database.count(db, "SELECT id FROM console_audit WHERE action = 'send-to-reconciliation'"
                + " AND target_id = ? AND outcome = 'done'", String.valueOf(recordId));
        assertThat(causes(paymentId)).containsExactly("CREATED>UNKNOWN provider_answer req-seed",
                "UNKNOWN>SUCCEEDED admin " + auditId);
        assertThat(sandboxChargesOf(orderId)).isEqualTo(1);

        String html = page("/console/operations/" + recordId, 200);
        assertThat(verdict(html)).containsPattern("The provider did not answer in time; the payment was UNKNOWN for "
                + "\\d+ s until an admin\\S+ “send to reconciliation” \\(audit entry " + auditId + ", by admin, reason: "
                + ConsoleClient.REASON + "\\) settled it: one charge.");
        assertThat(html).contains("Request req-seed answered 202 UNKNOWN after 2.0 s")
                .contains("The client was answered 202 UNKNOWN after 2.0 s; an admin action (audit entry " + auditId
                        + ") finished the operation.")
                .contains("admin action, audit entry " + auditId + ", by admin, reason: " + ConsoleClient.REASON)
                .contains("href=\"/console/audit/" + auditId + "\"");
    }

    @Test
    void anEarlyWebhookIsParkedAndAppliedTheMomentItsPaymentLearnsItsProviderId() throws Exception {
        String orderId = newOrder();
        String key = UUID.randomUUID().toString();
        CompletableFuture<Response> first = CompletableFuture.supplyAsync(
                () -> pay(orderId, key, "tok_timeout_after_commit", "req-early-" + UUID.randomUUID()));
        String sandboxPaymentId = holdBackTheSandboxsOwnWebhooks(orderId);
        Response unknown = first.get();
        String paymentId = unknown.path("paymentId");
        String eventId = "evt_early_" + UUID.randomUUID();
        // a provider that does not echo metadata: the event names only its own payment id, which onceguard lacks
        String early = """
                {"id":"%s","type":"payment.succeeded","created":"%s","data":{"object":{"id":"%s","status":"SUCCEEDED",\
                "amount":"%s","currency":"RUB"}}}""".formatted(eventId, Instant.now(), sandboxPaymentId,
                text("SELECT total::text FROM orders WHERE order_id = ?", orderId));

        Response parked = deliverSandboxEvent(eventId, early);
        String whileParked = text("SELECT status FROM webhook_inbox WHERE event_id = ?", eventId);
        Response retry = pay(orderId, key, "tok_timeout_after_commit", "req-retry-" + UUID.randomUUID());

        assertThat(unknown.statusCode()).isEqualTo(202);
        assertThat(parked.statusCode()).isEqualTo(200);
        assertThat(parked.path("status").toString()).isEqualTo("pending_match");
        assertThat(whileParked).isEqualTo("PENDING_MATCH");
        assertThat(retry.statusCode()).isEqualTo(201);
        assertThat(retry.<String>path("status")).isEqualTo("SUCCEEDED");
        assertThat(text("SELECT status || ' ' || payment_id FROM webhook_inbox WHERE event_id = ?", eventId))
                .isEqualTo("PROCESSED " + paymentId);
        assertThat(causes(paymentId)).last().isEqualTo("UNKNOWN>SUCCEEDED webhook " + eventId);
        assertThat(sandboxChargesOf(orderId)).isEqualTo(1);

        requestLog.flush();
        String html = page("/console/operations/" + recordOf(paymentId), 200);
        assertThat(verdict(html)).containsPattern("UNKNOWN for \\d+(\\.\\d)? s until its payment.succeeded webhook settled it: one "
                + "charge.");
        assertThat(html).contains(eventId);
    }

    /** Postpones the sandbox's own deliveries for the order's payment as soon as it has committed them; its id. */
    private String holdBackTheSandboxsOwnWebhooks(String orderId) {
        String sandboxPaymentId = await().pollInSameThread()
                .alias("the sandbox commits the payment").atMost(Duration.ofSeconds(10))
                .pollInterval(Duration.ofMillis(20))
                .until(() -> text("SELECT id FROM sandbox_payments WHERE order_id = ?", orderId), Objects::nonNull);
        execute(db, "UPDATE sandbox_webhook_deliveries SET next_attempt_at = now() + interval '1 hour'"
                + " WHERE payment_id = ? AND status = 'PENDING'", sandboxPaymentId);
        return sandboxPaymentId;
    }

    private Response deliverSandboxEvent(String eventId, String body) {
        long now = Instant.now().getEpochSecond();
        return given().contentType("application/json")
                .header(StandardWebhooksSignature.ID, eventId)
                .header(StandardWebhooksSignature.TIMESTAMP, String.valueOf(now))
                .header(StandardWebhooksSignature.SIGNATURE, StandardWebhooksSignature.sign(eventId, now,
                        body.getBytes(StandardCharsets.UTF_8), sandboxSecret))
                .body(body)
                .post("/webhooks/sandbox");
    }
}
