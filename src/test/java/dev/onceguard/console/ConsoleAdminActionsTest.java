package dev.onceguard.console;

import dev.onceguard.TestTokens;
import io.agroal.api.AgroalDataSource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.Response;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static dev.onceguard.Database.count;
import static dev.onceguard.Database.execute;
import static dev.onceguard.console.ConsoleClient.ADMIN;
import static dev.onceguard.console.ConsoleClient.SUPPORT;
import static dev.onceguard.console.ConsoleClient.form;
import static dev.onceguard.console.ConsoleClient.page;
import static dev.onceguard.console.ConsoleClient.post;
import static dev.onceguard.console.ConsoleClient.postWithoutReason;
import static dev.onceguard.console.ConsoleClient.postWithoutToken;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every admin action: refused to support (403), to a form without its CSRF token and to one without a reason (or with
 * one over 500 characters), done for an admin with both, and audited with the operator, the action, the target, the
 * reason and the outcome, including when it is refused.
 */
@QuarkusTest
class ConsoleAdminActionsTest {

    private static final String ORDER = "{\"items\":[{\"productId\":\"p-184\",\"quantity\":1}],\"currency\":\"RUB\"}";

    @Inject
    AgroalDataSource db;


    @Test
    void releaseDeletesAnOperationAbandonedBeforeAnyExternalCallAndTheKeyWorksAgain() {
        String user = TestTokens.newUser();
        String key = UUID.randomUUID().toString();
        long id = MachinerySeeds.processing(db, user, "create-order", key, "started", null, true);
        String path = "/console/stuck/" + id + "/release";

        assertRefusedToSupportAndWithoutToken("/console/stuck", path, "idempotency-record", id,
                "SELECT status || ' ' || recovery_point FROM idempotency_records WHERE id = " + id);

        Response done = post(ADMIN, path, form(ADMIN, "/console/stuck"));

        assertThat(done.statusCode()).isEqualTo(303);
        assertThat(done.header("Location")).endsWith("/console/stuck?notice=released&target=" + id);
        assertThat(count(db, "SELECT count(*) FROM idempotency_records WHERE id = ?", id)).isZero();
        assertThat(lastAudit("idempotency-record", id)).isEqualTo("admin release idempotency-record " + id + " done");
        assertThat(page(ADMIN, done.header("Location")).asString()).contains("Operation " + id + " released");
        given().header("Authorization", TestTokens.bearer(user)).header("Idempotency-Key", key)
                .contentType("application/json").body(ORDER).post("/api/orders").then().statusCode(201);
    }

    @Test
    void releaseIsRefusedForAPaymentThatMayHaveCalledTheProviderAndTheRefusalIsAudited() {
        MachinerySeeds.Payment payment = MachinerySeeds.payment(db, "sandbox", "UNKNOWN");
        long id = MachinerySeeds.processing(db, TestTokens.newUser(), "create-payment", UUID.randomUUID().toString(),
                "outcome_unknown", payment.paymentId(), true);

        Response refused = post(ADMIN, "/console/stuck/" + id + "/release", form(ADMIN, "/console/stuck"));

        assertThat(refused.statusCode()).isEqualTo(303);
        assertThat(refused.header("Location")).contains("notice=release-refused");
        assertThat(text("SELECT status || ' ' || recovery_point FROM idempotency_records WHERE id = " + id))
                .isEqualTo("PROCESSING outcome_unknown");
        assertThat(text("SELECT status FROM payments WHERE payment_id = '" + payment.paymentId() + "'")).isEqualTo("UNKNOWN");
        assertThat(lastAudit("idempotency-record", id)).isEqualTo("admin release idempotency-record " + id + " refused");
        assertThat(page(ADMIN, refused.header("Location")).asString()).contains("was not released")
                .contains("Send to reconciliation");
    }

    @Test
    void anOperationSomeoneElseResolvedIsReportedAsAlreadyResolved() {
        long live = MachinerySeeds.processing(db, TestTokens.newUser(), "create-order", UUID.randomUUID().toString(),
                "started", null, false);
        long released = MachinerySeeds.processing(db, TestTokens.newUser(), "create-order", UUID.randomUUID().toString(),
                "started", null, true);
        ConsoleClient.Form form = form(ADMIN, "/console/stuck");
        post(ADMIN, "/console/stuck/" + released + "/release", form);

        Response liveLease = post(ADMIN, "/console/stuck/" + live + "/release", form);
        Response again = post(ADMIN, "/console/stuck/" + released + "/release", form);
        Response reconcileGone = post(ADMIN, "/console/stuck/" + released + "/reconcile", form);

        for (Response response : List.of(liveLease, again, reconcileGone)) {
            assertThat(response.statusCode()).isEqualTo(303);
            assertThat(response.header("Location")).contains("notice=operation-already-resolved");
        }
        assertThat(count(db, "SELECT count(*) FROM idempotency_records WHERE id = ? AND status = 'PROCESSING'", live))
                .isEqualTo(1);
        assertThat(lastAudit("idempotency-record", live)).isEqualTo("admin release idempotency-record " + live + " already-resolved");
        assertThat(lastAudit("idempotency-record", released))
                .isEqualTo("admin send-to-reconciliation idempotency-record " + released + " already-resolved");
        assertThat(page(ADMIN, again.header("Location")).asString()).contains("was already resolved");
    }

    @Test
    void sendToReconciliationResumesThePaymentWithItsProviderKeyAndChargesOnce() {
        String user = TestTokens.newUser();
        String orderId = given().header("Authorization", TestTokens.bearer(user))
                .header("Idempotency-Key", UUID.randomUUID().toString()).contentType("application/json").body(ORDER)
                .post("/api/orders").then().statusCode(201).extract().path("orderId");
        String paymentId = "pay_" + UUID.randomUUID();
        execute(db, "INSERT INTO payments (payment_id, order_id, user_id, status, amount, currency, provider, "
                + "provider_idempotency_key, payment_method_token, created_at, updated_at) "
                + "VALUES (?, ?, ?, 'CREATED', 1500.00, 'RUB', 'sandbox', ?, 'tok_success', now(), now())",
                paymentId, orderId, user, "onceguard-" + paymentId);
        // the process died after phase (a), before its provider call: only the provider key says which payment it is
        long id = MachinerySeeds.processing(db, user, "create-payment", "crashed-before-call", "payment_created",
                paymentId, true);
        String path = "/console/stuck/" + id + "/reconcile";

        assertRefusedToSupportAndWithoutToken("/console/stuck", path, "idempotency-record", id,
                "SELECT r.status || ' ' || p.status FROM idempotency_records r JOIN payments p ON p.payment_id = r.resource_id"
                        + " WHERE r.id = " + id);

        Response done = post(ADMIN, path, form(ADMIN, "/console/stuck"));

        assertThat(done.statusCode()).isEqualTo(303);
        assertThat(done.header("Location")).contains("notice=reconciled&target=" + id);
        assertThat(text("SELECT status FROM payments WHERE payment_id = '" + paymentId + "'")).isEqualTo("SUCCEEDED");
        assertThat(text("SELECT status || ' ' || response_status FROM idempotency_records WHERE id = " + id))
                .isEqualTo("COMPLETED 201");
        assertThat(given().get("/sandbox/v1/payments?orderId=" + orderId).then().extract().<List<Object>>path("data"))
                .as("one charge at the provider, under the payment's own provider key").hasSize(1);
        assertThat(lastAudit("idempotency-record", id)).isEqualTo("admin send-to-reconciliation idempotency-record " + id + " done");
        assertThat(text("SELECT detail FROM console_audit WHERE target_type = 'idempotency-record' AND target_id = '" + id
                + "' ORDER BY id DESC LIMIT 1"))
                .contains(paymentId).contains("SUCCEEDED");
        assertThat(page(SUPPORT, "/console/orders/" + orderId).asString())
                .as("the order's story names who sent the payment to reconciliation and why")
                .contains("by admin, reason: " + ConsoleClient.REASON);
    }

    @Test
    void theOrdersStoryNamesWhoQueuedItsDeadOutboxEventAgainAndWhy() {
        String orderId = given().header("Authorization", TestTokens.bearer(TestTokens.newUser()))
                .header("Idempotency-Key", UUID.randomUUID().toString()).contentType("application/json").body(ORDER)
                .post("/api/orders").then().statusCode(201).extract().path("orderId");
        execute(db, """
                INSERT INTO outbox_events (event_type, aggregate_type, aggregate_id, payload, status, attempts,
                    next_attempt_at, last_error, created_at)
                VALUES ('CONSOLE_TEST', 'order', ?, '{}', 'DEAD', 8, now(), 'license: timeout', now())""", orderId);
        long id = count(db, "SELECT id FROM outbox_events WHERE aggregate_id = ? AND status = 'DEAD'", orderId);

        post(ADMIN, "/console/outbox/" + id + "/retry", form(ADMIN, "/console/outbox?status=DEAD")).then().statusCode(303);

        assertThat(page(SUPPORT, "/console/orders/" + orderId).asString())
                .contains("queued again").contains("by admin, reason: " + ConsoleClient.REASON);
    }

    @Test
    void theReasonIsKeptInTheAuditEntryAndShownOnTheAuditPage() {
        long id = MachinerySeeds.processing(db, TestTokens.newUser(), "create-order", UUID.randomUUID().toString(),
                "started", null, true);
        String reason = "  customer <b>asked</b> to retry with the same key, ticket 4711  ";

        post(ADMIN, "/console/stuck/" + id + "/release", form(ADMIN, "/console/stuck"), reason).then().statusCode(303);

        assertThat(text("SELECT reason FROM console_audit WHERE target_type = 'idempotency-record' AND target_id = '"
                + id + "'")).isEqualTo(reason.strip());
        assertThat(page(SUPPORT, "/console/audit").asString())
                .contains("customer &lt;b&gt;asked&lt;/b&gt; to retry with the same key, ticket 4711");
        assertThat(page(SUPPORT, "/console/audit?format=csv").asString()).contains(reason.strip());
    }

    @Test
    void aReasonOfExactly500CharactersIsKept() {
        long id = MachinerySeeds.processing(db, TestTokens.newUser(), "create-order", UUID.randomUUID().toString(),
                "started", null, true);

        post(ADMIN, "/console/stuck/" + id + "/release", form(ADMIN, "/console/stuck"), "é".repeat(500))
                .then().statusCode(303);

        assertThat(count(db, "SELECT count(*) FROM idempotency_records WHERE id = ?", id)).isZero();
        assertThat(text("SELECT char_length(reason)::text FROM console_audit WHERE target_type = 'idempotency-record'"
                + " AND target_id = '" + id + "'")).isEqualTo("500");
    }

    @Test
    void twoAdminsReleasingTheSameOperationAtOnceReleaseItOnce() throws Exception {
        long id = MachinerySeeds.processing(db, TestTokens.newUser(), "create-order", UUID.randomUUID().toString(),
                "started", null, true);

        List<String> notices = atOnce(() -> post(ADMIN, "/console/stuck/" + id + "/release", form(ADMIN, "/console/stuck")));

        assertThat(notices).containsExactlyInAnyOrder("released", "operation-already-resolved");
        assertThat(count(db, "SELECT count(*) FROM idempotency_records WHERE id = ?", id)).isZero();
        assertThat(count(db, "SELECT count(*) FROM console_audit WHERE target_type = 'idempotency-record'"
                + " AND target_id = ? AND outcome = 'done'", String.valueOf(id))).isEqualTo(1);
    }

    @Test
    void twoAdminsSendingTheSamePaymentToReconciliationAtOnceResumeItOnce() throws Exception {
        MachinerySeeds.Payment payment = MachinerySeeds.payment(db, "sandbox", "UNKNOWN");
        long id = MachinerySeeds.processing(db, TestTokens.newUser(), "create-payment", UUID.randomUUID().toString(),
                "outcome_unknown", payment.paymentId(), true);

        List<String> notices = atOnce(() -> post(ADMIN, "/console/stuck/" + id + "/reconcile", form(ADMIN, "/console/stuck")));

        assertThat(notices).containsExactlyInAnyOrder("reconciled", "operation-already-resolved");
        assertThat(text("SELECT status FROM payments WHERE payment_id = '" + payment.paymentId() + "'")).isEqualTo("SUCCEEDED");
        assertThat(count(db, "SELECT count(*) FROM state_transitions WHERE subject_type = 'payment' AND subject_id = ?",
                payment.paymentId())).as("the payment settled once").isEqualTo(1);
        assertThat(count(db, "SELECT count(*) FROM console_audit WHERE target_type = 'idempotency-record'"
                + " AND target_id = ? AND outcome = 'done'", String.valueOf(id))).isEqualTo(1);
    }

    @Test
    void sendToReconciliationIsRefusedForAnOperationThatNeverCalledOut() {
        long id = MachinerySeeds.processing(db, TestTokens.newUser(), "create-payment", UUID.randomUUID().toString(),
                "started", null, true);

        Response refused = post(ADMIN, "/console/stuck/" + id + "/reconcile", form(ADMIN, "/console/stuck"));

        assertThat(refused.header("Location")).contains("notice=reconcile-not-needed");
        assertThat(count(db, "SELECT count(*) FROM idempotency_records WHERE id = ? AND status = 'PROCESSING'", id))
                .isEqualTo(1);
        assertThat(lastAudit("idempotency-record", id)).isEqualTo("admin send-to-reconciliation idempotency-record " + id + " refused");
    }

    @Test
    void reprocessAppliesAnIgnoredWebhookEventAndTheStateChangeNamesTheAuditEntry() {
        MachinerySeeds.Payment payment = MachinerySeeds.payment(db, MachinerySeeds.TESTPAY, "PENDING");
        long id = MachinerySeeds.failedWebhook(db, payment.providerPaymentId());
        execute(db, "UPDATE webhook_inbox SET status = 'IGNORED', reason = 'unknown payment', last_error = NULL,"
                + " processed_at = now() WHERE id = ?", id);

        Response done = post(ADMIN, "/console/webhooks/" + id + "/reprocess", form(ADMIN, "/console/webhooks?status=IGNORED"));

        assertThat(done.header("Location")).endsWith("/console/webhooks?notice=webhook-processed&target=" + id);
        assertThat(text("SELECT status || ' ' || payment_id FROM webhook_inbox WHERE id = " + id))
                .isEqualTo("PROCESSED " + payment.paymentId());
        assertThat(lastAudit("webhook-event", id)).isEqualTo("admin reprocess webhook-event " + id + " done");
        String auditId = text("SELECT id::text FROM console_audit WHERE target_type = 'webhook-event' AND target_id = '"
                + id + "' ORDER BY id DESC LIMIT 1");
        assertThat(text("SELECT from_status || '>' || to_status || ' ' || cause || ' ' || cause_ref FROM state_transitions"
                + " WHERE subject_type = 'payment' AND subject_id = '" + payment.paymentId() + "'"))
                .isEqualTo("PENDING>SUCCEEDED admin " + auditId);
    }

    @Test
    void reprocessAppliesAFailedWebhookEventThroughTheInbox() {
        MachinerySeeds.Payment payment = MachinerySeeds.payment(db, MachinerySeeds.TESTPAY, "PENDING");
        long id = MachinerySeeds.failedWebhook(db, payment.providerPaymentId());
        String path = "/console/webhooks/" + id + "/reprocess";

        assertRefusedToSupportAndWithoutToken("/console/webhooks", path, "webhook-event", id,
                "SELECT status FROM webhook_inbox WHERE id = " + id);

        Response done = post(ADMIN, path, form(ADMIN, "/console/webhooks?status=FAILED"));

        assertThat(done.statusCode()).isEqualTo(303);
        assertThat(done.header("Location")).endsWith("/console/webhooks?notice=webhook-processed&target=" + id);
        assertThat(text("SELECT status || ' ' || delivery_count FROM webhook_inbox WHERE id = " + id))
                .isEqualTo("PROCESSED 1");
        assertThat(text("SELECT status FROM payments WHERE payment_id = '" + payment.paymentId() + "'"))
                .isEqualTo("SUCCEEDED");
        assertThat(lastAudit("webhook-event", id)).isEqualTo("admin reprocess webhook-event " + id + " done");
        assertThat(page(SUPPORT, "/console/webhooks/" + id).asString()).as("who reprocessed the event and why")
                .contains("admin, reprocess: " + ConsoleClient.REASON);

        Response again = post(ADMIN, path, form(ADMIN, "/console/webhooks"));

        assertThat(again.header("Location")).contains("notice=webhook-already-resolved");
        assertThat(lastAudit("webhook-event", id)).isEqualTo("admin reprocess webhook-event " + id + " already-resolved");
        assertThat(count(db, "SELECT count(*) FROM state_transitions WHERE subject_type = 'payment' AND subject_id = ?",
                payment.paymentId())).isEqualTo(1);
    }

    @Test
    void retryNowQueuesADeadOutboxEventAgainDueNowWithItsAttemptsReset() {
        long id = MachinerySeeds.deadOutboxEvent(db);
        String path = "/console/outbox/" + id + "/retry";
        assertThat(page(ADMIN, "/console/outbox?status=DEAD").asString()).contains("action=\"" + path + "\"");

        assertRefusedToSupportAndWithoutToken("/console/outbox?status=DEAD", path, "outbox-event", id,
                "SELECT status || ' ' || attempts FROM outbox_events WHERE id = " + id);

        Response done = post(ADMIN, path, form(ADMIN, "/console/outbox?status=DEAD"));

        assertThat(done.statusCode()).isEqualTo(303);
        assertThat(done.header("Location")).endsWith("/console/outbox?notice=outbox-requeued&target=" + id);
        assertThat(text("SELECT status || ' ' || attempts || ' ' || (next_attempt_at <= now()) FROM outbox_events"
                + " WHERE id = " + id)).isEqualTo("PENDING 0 true");
        assertThat(lastAudit("outbox-event", id)).isEqualTo("admin retry-now outbox-event " + id + " done");

        Response again = post(ADMIN, path, form(ADMIN, "/console/outbox"));

        assertThat(again.header("Location")).contains("notice=outbox-already-resolved");
        assertThat(lastAudit("outbox-event", id)).isEqualTo("admin retry-now outbox-event " + id + " already-resolved");
    }

    @Test
    void runNowRunsTheJobAsTheSchedulerDoesAndRecordsTheRun() {
        String runs = "SELECT count(*) FROM job_runs WHERE job = 'lease-recovery'";
        long before = count(db, runs);
        long audited = count(db, "SELECT count(*) FROM console_audit WHERE target_type = 'job'");
        String path = "/console/jobs/lease-recovery/run";

        assertThat(page(SUPPORT, "/console/jobs").statusCode()).isEqualTo(200);
        assertThat(post(SUPPORT, path, form(SUPPORT, "/console/jobs")).statusCode()).isEqualTo(403);
        assertThat(postWithoutToken(ADMIN, path).statusCode()).isEqualTo(400);
        assertThat(count(db, runs)).isEqualTo(before);
        assertThat(count(db, "SELECT count(*) FROM console_audit WHERE target_type = 'job'")).isEqualTo(audited);

        Response done = post(ADMIN, path, form(ADMIN, "/console/jobs"));

        assertThat(done.statusCode()).isEqualTo(303);
        assertThat(done.header("Location")).endsWith("/console/jobs?notice=job-succeeded&target=lease-recovery");
        assertThat(count(db, runs)).isEqualTo(before + 1);
        assertThat(text("SELECT outcome || ' ' || (counts ->> 'released' IS NOT NULL) FROM job_runs WHERE job = 'lease-recovery'"
                + " ORDER BY id DESC LIMIT 1")).isEqualTo("SUCCEEDED true");
        assertThat(text("SELECT actor || ' ' || action || ' ' || target_type || ' ' || target_id || ' ' || outcome"
                + " FROM console_audit WHERE target_type = 'job' ORDER BY id DESC LIMIT 1"))
                .isEqualTo("admin run-now job lease-recovery done");
        assertThat(page(ADMIN, done.header("Location")).asString()).contains("Job lease-recovery ran and succeeded");
    }

    @Test
    void everyJobCanBeRunFromTheConsole() {
        ConsoleClient.Form form = form(ADMIN, "/console/jobs");
        for (String job : List.of("retention-cleanup", "reconciliation", "outbox-relay")) {
            long before = count(db, "SELECT count(*) FROM job_runs WHERE job = ?", job);

            Response done = post(ADMIN, "/console/jobs/" + job + "/run", form);

            assertThat(done.header("Location")).as(job).contains("notice=job-succeeded&target=" + job);
            assertThat(count(db, "SELECT count(*) FROM job_runs WHERE job = ?", job)).as(job).isEqualTo(before + 1);
        }
    }

    @Test
    void unknownTargetsAreClear404PagesAndChangeNothing() {
        ConsoleClient.Form form = form(ADMIN, "/console/jobs");
        long audited = count(db, "SELECT count(*) FROM console_audit");
        for (String path : List.of("/console/stuck/abc/release", "/console/stuck/-1/reconcile",
                "/console/webhooks/999999999/reprocess", "/console/outbox/999999999/retry",
                "/console/jobs/%3Cscript%3E/run", "/console/jobs/payroll/run")) {
            Response response = post(ADMIN, path, form);

            assertThat(response.statusCode()).as(path).isEqualTo(404);
            assertThat(response.contentType()).as(path).startsWith("text/html");
            assertThat(response.asString()).as(path).contains("Not found").doesNotContain("<script>");
        }
        assertThat(count(db, "SELECT count(*) FROM console_audit")).isEqualTo(audited);
    }

    @Test
    void theAuditLogShowsEachActionNewestFirst() {
        long id = MachinerySeeds.processing(db, TestTokens.newUser(), "create-order", UUID.randomUUID().toString(),
                "started", null, true);
        post(ADMIN, "/console/stuck/" + id + "/release", form(ADMIN, "/console/stuck"));

        String html = page(SUPPORT, "/console/audit").asString();

        assertThat(html).contains("href=\"/console/operations/" + id + "\"").contains(">done</span>");
        assertThat(html.indexOf("/console/operations/" + id)).isLessThan(html.indexOf("</tbody>"));
    }

    /**
     * Support (403), a form without its token (the CSRF extension's 400,
     * explained by the console's page) and a form without a usable reason (400, saying
     * so) change nothing and leave no audit row.
     */
    private void assertRefusedToSupportAndWithoutToken(String page, String path, String targetType, long target,
                                                       String stateQuery) {
        String before = text(stateQuery);

        Response support = post(SUPPORT, path, form(SUPPORT, page));
        Response forged = postWithoutToken(ADMIN, path);
        Response wrongToken = post(ADMIN, path, new ConsoleClient.Form(form(ADMIN, page).cookie(), "not-the-token"));

        assertThat(support.statusCode()).isEqualTo(403);
        assertThat(forged.statusCode()).isEqualTo(400);
        assertThat(forged.contentType()).startsWith("text/html");
        assertThat(forged.asString()).contains("Form not accepted").contains("Nothing was done");
        assertThat(wrongToken.statusCode()).isEqualTo(400);
        assertThat(wrongToken.asString()).contains("Form not accepted");
        Response noReason = postWithoutReason(ADMIN, path, form(ADMIN, page));
        Response blankReason = post(ADMIN, path, form(ADMIN, page), "   ");
        Response longReason = post(ADMIN, path, form(ADMIN, page), "x".repeat(501));
        Response nulReason = post(ADMIN, path, form(ADMIN, page), "a\u0000b");
        assertThat(noReason.statusCode()).isEqualTo(400);
        assertThat(noReason.asString()).contains("Every admin action needs a reason").contains("Nothing was done.");
        assertThat(blankReason.statusCode()).isEqualTo(400);
        assertThat(blankReason.asString()).contains("Every admin action needs a reason");
        assertThat(longReason.statusCode()).isEqualTo(400);
        assertThat(longReason.asString()).contains("A reason is at most 500 characters; this one has 501");
        assertThat(nulReason.statusCode()).isEqualTo(400);
        assertThat(text(stateQuery)).isEqualTo(before);
        assertThat(count(db, "SELECT count(*) FROM console_audit WHERE target_type = ? AND target_id = ?", targetType,
                String.valueOf(target))).isZero();
    }

    /** Two admins submitting at the same moment; the notice code each was redirected with. */
    private static List<String> atOnce(Callable<Response> submit) throws Exception {
        CyclicBarrier barrier = new CyclicBarrier(2);
        ExecutorService admins = Executors.newFixedThreadPool(2);
        try {
            List<Future<Response>> answers = List.of(admins.submit(() -> {
                barrier.await();
                return submit.call();
            }), admins.submit(() -> {
                barrier.await();
                return submit.call();
            }));
            List<String> notices = new ArrayList<>();
            for (Future<Response> answer : answers) {
                String location = answer.get().header("Location");
                notices.add(location.replaceAll(".*notice=([a-z-]+).*", "$1"));
            }
            return notices;
        } finally {
            admins.shutdown();
        }
    }

    private String lastAudit(String targetType, long target) {
        return text("SELECT actor || ' ' || action || ' ' || target_type || ' ' || target_id || ' ' || outcome"
                + " FROM console_audit WHERE target_type = '" + targetType + "' AND target_id = '" + target + "'"
                + " ORDER BY id DESC LIMIT 1");
    }

    private String text(String sql) {
        try (Connection connection = db.getConnection();
             PreparedStatement statement = connection.prepareStatement(sql);
             ResultSet rows = statement.executeQuery()) {
            return rows.next() ? rows.getString(1) : null;
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }
}
