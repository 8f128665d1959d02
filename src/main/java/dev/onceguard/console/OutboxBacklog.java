package dev.onceguard.console;

import dev.onceguard.outbox.OutboxRelay;
import dev.onceguard.platform.KeysetQuery;
import jakarta.enterprise.context.ApplicationScoped;

import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

import static dev.onceguard.platform.SqlRows.instant;

/** Outbox events not delivered yet (pending, retrying or dead), oldest first, and "retry now" of a dead one. */
@ApplicationScoped
public class OutboxBacklog {

    static final int COUNT_LIMIT = 10_000;

    /** The page's status filter (PENDING when none is given); RETRYING is PENDING with an attempt behind it. */
    public enum Shown {
        PENDING("status = ?", "PENDING"),
        RETRYING("status = ? AND attempts > 0", "PENDING"),
        DEAD("status = ?", "DEAD");

        /** The rows shown, with the status it names bound to its placeholder. */
        private final String condition;
        private final String status;

        Shown(String condition, String status) {
            this.condition = condition;
            this.status = status;
        }

        private CappedCount counted(ConsoleReads reads) {
            return reads.countUpTo(COUNT_LIMIT, "outbox_events", condition, status);
        }

        static Shown of(String status) {
            if (status == null || status.isEmpty()) {
                return PENDING;
            }
            return Arrays.stream(values()).filter(shown -> shown.name().equals(status)).findFirst()
                    .orElseThrow(() -> ConsoleRequestRejected.badRequest("Status must be PENDING, RETRYING or DEAD."));
        }
    }

    static final List<CsvExport.Column<Event>> CSV = List.of(
            new CsvExport.Column<>("event_id", Event::id),
            new CsvExport.Column<>("event_type", Event::eventType),
            new CsvExport.Column<>("aggregate_type", Event::aggregateType),
            new CsvExport.Column<>("aggregate_id", Event::aggregateId),
            new CsvExport.Column<>("status", Event::status),
            new CsvExport.Column<>("attempts", Event::attempts),
            new CsvExport.Column<>("next_attempt_at", Event::nextAttemptAt),
            new CsvExport.Column<>("last_error", Event::lastError),
            new CsvExport.Column<>("created_at", Event::createdAt));

    public record Event(long id, String eventType, String aggregateType, String aggregateId, String status,
                        int attempts, Instant nextAttemptAt, String lastError, Instant createdAt) {

        public boolean dead() {
            return status.equals("DEAD");
        }

        /** PENDING with attempts behind it is shown as RETRYING, as the filter names it. */
        public String shownStatus() {
            return status.equals("PENDING") && attempts > 0 ? "RETRYING" : status;
        }

        public String statusClass() {
            return StatusBadges.outboxEvent(status, attempts);
        }
    }

    public record Counts(CappedCount pending, CappedCount retrying, CappedCount dead, Instant oldestPending) {
    }

    private final ConsoleReads reads;
    private final OutboxRelay relay;

    public OutboxBacklog(ConsoleReads reads, OutboxRelay relay) {
        this.reads = reads;
        this.relay = relay;
    }

    KeysetPage<Event> list(Shown shown, Optional<Cursor> after) {
        KeysetQuery query = KeysetQuery.oldestFirst("""
                SELECT id, event_type, aggregate_type, aggregate_id, status, attempts, next_attempt_at, last_error,
                       created_at
                  FROM outbox_events""", "created_at", "id", KeysetPage.SIZE)
                .where(shown.condition, shown.status);
        after.ifPresent(cursor -> query.after(cursor.at(), cursor.number()));
        return reads.page(query, row -> new Event(row.getLong("id"), row.getString("event_type"),
                row.getString("aggregate_type"), row.getString("aggregate_id"), row.getString("status"),
                row.getInt("attempts"), instant(row, "next_attempt_at"), row.getString("last_error"),
                instant(row, "created_at")), row -> new Cursor(row.createdAt(), row.id()));
    }

    Counts counts() {
        return new Counts(Shown.PENDING.counted(reads), Shown.RETRYING.counted(reads), Shown.DEAD.counted(reads),
                reads.one("SELECT min(created_at) AS oldest FROM outbox_events WHERE status = 'PENDING'",
                        row -> instant(row, "oldest")).orElse(null));
    }

    boolean exists(long id) {
        return reads.one("SELECT 1 FROM outbox_events WHERE id = ?", row -> true, id).isPresent();
    }

    /**
     * A DEAD event becomes PENDING, due now, with its attempts reset to zero ({@link OutboxRelay#retryNow}: one
     * conditional UPDATE on {@code status = 'DEAD'}), so it gets the whole retry budget and backoff again. Its last
     * error stays until the next attempt replaces it.
     */
    ActionResult retryNow(long id) {
        if (relay.retryNow(id)) {
            return new ActionResult(AuditOutcome.DONE, AdminNotice.OUTBOX_REQUEUED, "PENDING, due now, attempts reset");
        }
        String status = reads.one("SELECT status FROM outbox_events WHERE id = ?", row -> row.getString(1), id)
                .orElse("gone");
        return new ActionResult(AuditOutcome.ALREADY_RESOLVED, AdminNotice.OUTBOX_ALREADY_RESOLVED,
                "event is " + status + ", not DEAD");
    }
}
