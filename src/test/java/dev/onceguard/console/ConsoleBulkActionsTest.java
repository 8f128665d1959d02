package dev.onceguard.console;

import dev.onceguard.TestTokens;
import dev.onceguard.outbox.OutboxRelay;
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
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static dev.onceguard.Database.count;
import static dev.onceguard.Database.execute;
import static dev.onceguard.console.ConsoleClient.ADMIN;
import static dev.onceguard.console.ConsoleClient.SUPPORT;
import static dev.onceguard.console.ConsoleClient.form;
import static dev.onceguard.console.ConsoleClient.page;
import static dev.onceguard.console.ConsoleClient.post;
import static dev.onceguard.console.ConsoleClient.postWithoutReason;
import static dev.onceguard.console.ConsoleClient.postWithoutToken;
import static io.restassured.RestAssured.when;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Bulk actions: a preview with the count, at most 1,000 rows (the oldest), each row through the single action's
 * conditional statement, one audit entry with every row's outcome, and the same guards as every admin action.
 */
@QuarkusTest
class ConsoleBulkActionsTest {

    private static final Pattern AUDIT_ENTRY = Pattern.compile("/console/audit/(\\d+)$");

    @Inject
    AgroalDataSource db;

    @Inject
    OutboxRelay relay;

    @Test
    void aBulkReprocessOf1200ParkedEventsActsOnTheOldest1000AndSaysSo() {
        String paymentRef = "bulk-" + UUID.randomUUID();
        // older than anything another test leaves in the inbox, so these are the oldest PENDING_MATCH events
        execute(db, """
                INSERT INTO webhook_inbox (provider, event_id, event_type, provider_payment_id, payload, status, reason,
                    received_at, last_delivered_at)
                SELECT ?, 'evt_' || ? || '_' || n, 'payment.succeeded', ? || '-' || n,
                       jsonb_build_object('id', 'evt_' || ? || '_' || n, 'type', 'payment.succeeded',
                                          'payment', ? || '-' || n, 'status', 'SUCCEEDED', 'amount', '1500.00',
                                          'currency', 'RUB'),
                       'PENDING_MATCH', 'no payment with this provider payment id yet',
                       timestamptz '2001-01-01 00:00:00+00' + n * interval '1 second',
                       timestamptz '2001-01-01 00:00:00+00' + n * interval '1 second'
                  FROM generate_series(1, 1200) AS n""",
                MachinerySeeds.TESTPAY, paymentRef, paymentRef, paymentRef, paymentRef);
        List<Long> seeded = ids("SELECT id FROM webhook_inbox WHERE event_id LIKE 'evt_" + paymentRef
                + "_%' ORDER BY received_at, id");
        String preview = "/console/bulk/webhooks/reprocess?status=PENDING_MATCH&provider=" + MachinerySeeds.TESTPAY;
        double actionsBefore = metric("onceguard_console_bulk_actions_total{action=\"reprocess\"}");
        double actedBefore = metric("onceguard_console_bulk_action_rows_total{action=\"reprocess\",outcome=\"acted\"}");

        String shown = page(ADMIN, preview).then().statusCode(200).extract().asString();

        assertThat(shown).contains("More than 1000 rows match").contains("This action takes the oldest 1000")
                .contains("status PENDING_MATCH, provider " + MachinerySeeds.TESTPAY)
                .contains("name=\"status\" value=\"PENDING_MATCH\"")
                .contains("name=\"provider\" value=\"" + MachinerySeeds.TESTPAY + "\"");

        long started = System.nanoTime();
        Response done = post(ADMIN, "/console/bulk/webhooks/reprocess", form(ADMIN, preview), "provider outage, replay",
                Map.of("status", "PENDING_MATCH", "provider", MachinerySeeds.TESTPAY));
        long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
        System.out.printf("bulk reprocess of 1000 webhook events took %d ms%n", tookMillis);

        assertThat(done.statusCode()).isEqualTo(303);
        long auditId = auditId(done);
        assertThat(text("SELECT actor || ' ' || action || ' ' || target_type || ' ' || outcome || ' | ' || reason"
                + " FROM console_audit WHERE id = " + auditId))
                .isEqualTo("admin bulk-reprocess webhook-events done | provider outage, replay");
        assertThat(ids("SELECT target_id::bigint FROM console_audit_rows WHERE audit_id = " + auditId
                + " ORDER BY target_id::bigint")).as("the oldest 1000 of the 1200").isEqualTo(seeded.subList(0, 1000));
        assertThat(count(db, "SELECT count(*) FROM console_audit_rows WHERE audit_id = ? AND outcome = 'acted'", auditId))
                .isEqualTo(1000);
        String entry = page(SUPPORT, done.header("Location")).then().statusCode(200).extract().asString();
        assertThat(entry).contains("the oldest 1000 of more than 1000 matching rows: 1000 acted")
                .contains("provider outage, replay").contains("1000 rows taken by this bulk action");
        assertThat(metric("onceguard_console_bulk_actions_total{action=\"reprocess\"}")).isEqualTo(actionsBefore + 1);
        assertThat(metric("onceguard_console_bulk_action_rows_total{action=\"reprocess\",outcome=\"acted\"}"))
                .isEqualTo(actedBefore + 1000);

        assertThat(page(SUPPORT, "/console/webhooks/" + seeded.get(0)).asString())
                .as("the event's page names who took it in bulk and why")
                .contains("admin, bulk-reprocess: provider outage, replay").contains("href=\"/console/audit/" + auditId + "\"");
        assertThat(page(SUPPORT, "/console/webhooks/" + seeded.get(1000)).asString()).doesNotContain("bulk-reprocess");

        execute(db, "DELETE FROM webhook_inbox WHERE event_id LIKE ?", "evt_" + paymentRef + "_%");
    }

    @Test
    void aBulkReleaseTakesTheStuckOperationsAtStartedAndLeavesTheOthers() {
        String user = TestTokens.newUser();
        long first = MachinerySeeds.processing(db, user, "create-order", UUID.randomUUID().toString(), "started", null, true);
        long second = MachinerySeeds.processing(db, user, "create-order", UUID.randomUUID().toString(), "started", null, true);
        long pastTheCall = MachinerySeeds.processing(db, user, "create-payment", UUID.randomUUID().toString(),
                "payment_created", null, true);

        assertThat(page(ADMIN, "/console/bulk/stuck/release").asString()).contains("match");
        Response done = post(ADMIN, "/console/bulk/stuck/release", form(ADMIN, "/console/bulk/stuck/release"),
                "clients gave up after the outage");

        long auditId = auditId(done);
        assertThat(count(db, "SELECT count(*) FROM idempotency_records WHERE id IN (?, ?)", first, second)).isZero();
        assertThat(count(db, "SELECT count(*) FROM idempotency_records WHERE id = ?", pastTheCall)).isEqualTo(1);
        assertThat(count(db, "SELECT count(*) FROM console_audit_rows WHERE audit_id = ? AND target_id IN (?, ?)"
                + " AND outcome = 'acted'", auditId, String.valueOf(first), String.valueOf(second))).isEqualTo(2);
        assertThat(count(db, "SELECT count(*) FROM console_audit_rows WHERE audit_id = ? AND target_id = ?", auditId,
                String.valueOf(pastTheCall))).isZero();
    }

    /**
     * Two admins on two replicas retry the dead outbox at the same moment as the relay runs: each dead event is
     * queued again by exactly one of them (the other reads "already handled") and delivered exactly once.
     */
    @Test
    void bulkRetriesRacingEachOtherAndTheRelayHandleEachDeadEventOnce() throws Exception {
        String aggregate = "bulk-" + UUID.randomUUID();
        execute(db, """
                INSERT INTO outbox_events (event_type, aggregate_type, aggregate_id, payload, status, attempts,
                    next_attempt_at, last_error, created_at)
                SELECT 'CONSOLE_TEST', 'test', ? || '-' || n, '{}', 'DEAD', 8, now() - interval '1 hour',
                       'license: timeout', timestamptz '2001-01-01 00:00:00+00' + n * interval '1 second'
                  FROM generate_series(1, 50) AS n""", aggregate);
        List<Long> seeded = ids("SELECT id FROM outbox_events WHERE aggregate_id LIKE '" + aggregate + "-%' ORDER BY id");
        ConsoleClient.Form first = form(ADMIN, "/console/bulk/outbox/retry");
        ConsoleClient.Form second = form(ADMIN, "/console/bulk/outbox/retry");
        CyclicBarrier barrier = new CyclicBarrier(3);
        AtomicBoolean adminsDone = new AtomicBoolean();
        ExecutorService threads = Executors.newFixedThreadPool(3);
        try {
            Future<Response> one = threads.submit(() -> {
                barrier.await();
                return post(ADMIN, "/console/bulk/outbox/retry", first, "relay was down, replay replica A");
            });
            Future<Response> two = threads.submit(() -> {
                barrier.await();
                return post(ADMIN, "/console/bulk/outbox/retry", second, "relay was down, replay replica B");
            });
            Future<Integer> relayed = threads.submit(() -> {
                barrier.await();
                int claimed = 0;
                while (!adminsDone.get()) {
                    claimed += relay.runOnce().claimed();
                }
                return claimed;
            });
            List<Long> audits = List.of(auditId(one.get()), auditId(two.get()));
            adminsDone.set(true);
            relayed.get();
            int claimedByTheLastRun;
            do {
                claimedByTheLastRun = relay.runOnce().claimed();
            } while (claimedByTheLastRun > 0);

            for (long event : seeded) {
                assertThat(count(db, "SELECT count(*) FROM console_audit_rows WHERE audit_id IN (?, ?) AND target_id = ?"
                        + " AND outcome = 'acted'", audits.get(0), audits.get(1), String.valueOf(event)))
                        .as("outbox event %d queued again by exactly one admin", event).isEqualTo(1);
                assertThat(text("SELECT status || ' ' || attempts FROM outbox_events WHERE id = " + event))
                        .as("outbox event %d delivered once", event).isEqualTo("DONE 1");
            }
        } finally {
            threads.shutdownNow();
        }
    }

    @Test
    void supportCannotPreviewOrRunABulkActionAndAFormWithoutItsTokenOrReasonDoesNothing() {
        long dead = MachinerySeeds.deadOutboxEvent(db);
        long audited = count(db, "SELECT count(*) FROM console_audit");

        page(SUPPORT, "/console/bulk/outbox/retry").then().statusCode(403);
        assertThat(page(SUPPORT, "/console/outbox?status=DEAD").asString()).doesNotContain("/console/bulk/");
        assertThat(post(SUPPORT, "/console/bulk/outbox/retry", form(SUPPORT, "/console/outbox")).statusCode())
                .isEqualTo(403);
        assertThat(postWithoutToken(ADMIN, "/console/bulk/outbox/retry").statusCode()).isEqualTo(400);
        Response noReason = postWithoutReason(ADMIN, "/console/bulk/outbox/retry", form(ADMIN, "/console/outbox"));
        Response longReason = post(ADMIN, "/console/bulk/outbox/retry", form(ADMIN, "/console/outbox"), "x".repeat(501));

        assertThat(noReason.statusCode()).isEqualTo(400);
        assertThat(noReason.asString()).contains("Every admin action needs a reason");
        assertThat(longReason.statusCode()).isEqualTo(400);
        assertThat(longReason.asString()).contains("A reason is at most 500 characters");
        assertThat(text("SELECT status FROM outbox_events WHERE id = " + dead)).isEqualTo("DEAD");
        assertThat(count(db, "SELECT count(*) FROM console_audit")).isEqualTo(audited);
        execute(db, "DELETE FROM outbox_events WHERE id = ?", dead);
    }

    @Test
    void aBulkReprocessNeedsAReprocessableStatus() {
        assertThat(page(ADMIN, "/console/bulk/webhooks/reprocess?status=PROCESSED").statusCode()).isEqualTo(400);
        assertThat(page(ADMIN, "/console/bulk/webhooks/reprocess").asString())
                .contains("A bulk reprocess acts on one status: FAILED, IGNORED or PENDING_MATCH.");
        assertThat(page(ADMIN, "/console/webhooks?status=FAILED").asString()).satisfiesAnyOf(
                html -> assertThat(html).contains("href=\"/console/bulk/webhooks/reprocess?status=FAILED\""),
                html -> assertThat(html).contains("No inbox events match these filters"));
    }

    private static long auditId(Response done) {
        assertThat(done.statusCode()).isEqualTo(303);
        Matcher id = AUDIT_ENTRY.matcher(done.header("Location"));
        assertThat(id.find()).as(done.header("Location")).isTrue();
        return Long.parseLong(id.group(1));
    }

    private static double metric(String series) {
        String scrape = when().get("/q/metrics").then().statusCode(200).extract().asString();
        // the value is the first word after the series: OpenMetrics may follow it with an exemplar (# {trace_id=…})
        return scrape.lines().filter(line -> line.startsWith(series + " ")).findFirst()
                .map(line -> Double.parseDouble(line.substring(series.length() + 1).trim().split(" ")[0])).orElse(0.0);
    }

    private List<Long> ids(String sql) {
        List<Long> ids = new ArrayList<>();
        try (Connection connection = db.getConnection();
             PreparedStatement statement = connection.prepareStatement(sql);
             ResultSet rows = statement.executeQuery()) {
            while (rows.next()) {
                ids.add(rows.getLong(1));
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
        return ids;
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
