package dev.onceguard.console;

import dev.onceguard.idempotency.IdempotencyRecordQueries;
import dev.onceguard.payment.PaymentService;
import dev.onceguard.platform.Cause;
import dev.onceguard.platform.Timestamps;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.runtime.Startup;
import jakarta.enterprise.context.ApplicationScoped;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiFunction;

import static dev.onceguard.platform.SqlRows.instant;

/**
 * A list's row action applied to every row matching the list's filter: at most {@link #MAX_ROWS} rows per action, the
 * oldest first, each through the single action's own conditional statement (so a job, a retry or another replica that
 * got to a row first wins it, and the row reads "already handled"), and one audit entry naming each row's outcome.
 * Counted in {@code onceguard_console_bulk_actions_total{action}} and
 * {@code onceguard_console_bulk_action_rows_total{action,outcome}}.
 */
@ApplicationScoped
@Startup
public class BulkActions {

    /** The most rows one bulk action takes: enough for an incident's backlog, small enough to finish in a request. */
    static final int MAX_ROWS = 1000;

    /** The bulk actions, each a list's row action; {@code path} is its address under {@code /console/bulk}. */
    public enum Action {
        REPROCESS_WEBHOOKS("webhooks/reprocess", "bulk-reprocess", "webhook-event", "Reprocess"),
        RETRY_DEAD_OUTBOX("outbox/retry", "bulk-retry-now", "outbox-event", "Retry now"),
        RELEASE_STUCK("stuck/release", "bulk-release", "idempotency-record", "Release"),
        RECONCILE_STUCK("stuck/reconcile", "bulk-send-to-reconciliation", "idempotency-record", "Send to reconciliation");

        private final String path;
        private final String auditName;
        private final String targetType;
        private final String button;

        Action(String path, String auditName, String targetType, String button) {
            this.path = path;
            this.auditName = auditName;
            this.targetType = targetType;
            this.button = button;
        }

        public String path() {
            return "/console/bulk/" + path;
        }

        public String auditName() {
            return auditName;
        }

        public String targetType() {
            return targetType;
        }

        public String button() {
            return button;
        }

        String metricName() {
            return auditName.substring("bulk-".length());
        }
    }

    /** The rows a bulk action would take now: the oldest first, {@code matched} counted up to one past the limit. */
    public record Selection(List<Long> rows, int matched, Instant oldest, Instant newest) {

        public boolean capped() {
            return matched > MAX_ROWS;
        }

        public int taken() {
            return rows.size();
        }

        public int maxRows() {
            return MAX_ROWS;
        }
    }

    /** How one row ended: acted, already-handled, refused or failed ({@link AuditOutcome#rowLabel}). */
    public record RowOutcome(long id, AuditOutcome outcome, String detail) {
    }

    /** A bulk action that ran: its audit entry and every row's outcome. */
    public record Done(long auditId, Action action, int matched, List<RowOutcome> rows) {

        long count(AuditOutcome outcome) {
            return rows.stream().filter(row -> row.outcome() == outcome).count();
        }

        /** Done when it acted on a row; otherwise failed when a row failed, else already resolved. */
        AuditOutcome outcome() {
            if (count(AuditOutcome.DONE) > 0) {
                return AuditOutcome.DONE;
            }
            return count(AuditOutcome.FAILED) > 0 ? AuditOutcome.FAILED : AuditOutcome.ALREADY_RESOLVED;
        }

        /** "1000 of more than 1000 matching rows, the oldest first: 998 acted, 2 already handled". */
        String summary() {
            String of = matched > MAX_ROWS ? "the oldest " + rows.size() + " of more than " + MAX_ROWS + " matching rows"
                    : rows.size() + " of " + matched + " matching row" + (matched == 1 ? "" : "s");
            List<String> counts = new ArrayList<>();
            for (AuditOutcome outcome : AuditOutcome.values()) {
                long counted = count(outcome);
                if (counted > 0) {
                    counts.add(counted + " " + outcome.rowLabel().replace('-', ' '));
                }
            }
            return of + ": " + (counts.isEmpty() ? "nothing to do" : String.join(", ", counts));
        }
    }

    private final ConsoleReads reads;
    private final IdempotencyRecordQueries records;
    private final ConsoleAudit audit;
    private final MeterRegistry registry;

    public BulkActions(ConsoleReads reads, IdempotencyRecordQueries records, ConsoleAudit audit, MeterRegistry registry) {
        this.reads = reads;
        this.records = records;
        this.audit = audit;
        this.registry = registry;
        for (Action action : Action.values()) {
            actions(action);
            for (AuditOutcome outcome : AuditOutcome.values()) {
                rows(action, outcome);
            }
        }
    }

    /** The webhook events with {@code status} (FAILED, IGNORED or PENDING_MATCH), of {@code provider} if given. */
    Selection webhookEvents(String status, String provider) {
        String byProvider = provider == null ? "" : " AND provider = ?";
        Object[] parameters = provider == null ? new Object[]{status, MAX_ROWS + 1}
                : new Object[]{status, provider, MAX_ROWS + 1};
        return select("SELECT id, received_at AS at FROM webhook_inbox WHERE " + InboxEvents.STATUS_NOT_PROCESSED + byProvider
                + " ORDER BY received_at, id LIMIT ?", parameters);
    }

    Selection deadOutboxEvents() {
        return select("SELECT id, created_at AS at FROM outbox_events WHERE status = 'DEAD' ORDER BY created_at, id LIMIT ?",
                MAX_ROWS + 1);
    }

    /** Stuck operations a release would take: those that cannot have reached an external call. */
    Selection releasableStuck() {
        return selected(records.abandonedForBulk(Timestamps.now(), false, null, MAX_ROWS + 1, BulkActions::taken));
    }

    /** Stuck payments past their provider call: what "send to reconciliation" is for. */
    Selection reconcilableStuck() {
        return selected(records.abandonedForBulk(Timestamps.now(), true, PaymentService.OPERATION, MAX_ROWS + 1,
                BulkActions::taken));
    }

    private record Taken(long id, Instant at) {
    }

    private static Taken taken(ResultSet row) throws SQLException {
        return new Taken(row.getLong("id"), instant(row, "at"));
    }

    private Selection select(String sql, Object... parameters) {
        return selected(reads.list(sql, BulkActions::taken, parameters));
    }

    private static Selection selected(List<Taken> matched) {
        List<Taken> taken = matched.subList(0, Math.min(matched.size(), MAX_ROWS));
        return new Selection(taken.stream().map(Taken::id).toList(), matched.size(),
                taken.isEmpty() ? null : taken.get(0).at(), taken.isEmpty() ? null : taken.get(taken.size() - 1).at());
    }

    /** Runs {@code action} on the rows of {@code selection}, audited as one entry and counted. */
    Done run(Action action, String filter, String reason, Selection selection, BiFunction<Long, Cause, ActionResult> perRow) {
        Done done = audit.performBulk(action, filter, reason, selection.rows(), selection.matched(), perRow);
        actions(action).increment();
        for (AuditOutcome outcome : AuditOutcome.values()) {
            rows(action, outcome).increment(done.count(outcome));
        }
        return done;
    }

    private Counter actions(Action action) {
        return Counter.builder("onceguard.console.bulk.actions")
                .description("Bulk admin actions taken in the console")
                .tag("action", action.metricName())
                .register(registry);
    }

    private Counter rows(Action action, AuditOutcome outcome) {
        return Counter.builder("onceguard.console.bulk.action.rows")
                .description("Rows taken by bulk admin actions, by how each ended")
                .tag("action", action.metricName()).tag("outcome", outcome.rowLabel())
                .register(registry);
    }
}
