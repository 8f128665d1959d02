package dev.onceguard.console;

import dev.onceguard.platform.KeysetQuery;
import jakarta.enterprise.context.ApplicationScoped;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

import static dev.onceguard.platform.SqlRows.instant;

/** The console's audit log ({@code console_audit}), newest first. */
@ApplicationScoped
public class AuditLog {

    static final List<CsvExport.Column<Entry>> CSV = List.of(
            new CsvExport.Column<>("audit_id", Entry::id),
            new CsvExport.Column<>("at", Entry::at),
            new CsvExport.Column<>("actor", Entry::actor),
            new CsvExport.Column<>("action", Entry::action),
            new CsvExport.Column<>("target_type", Entry::targetType),
            new CsvExport.Column<>("target_id", Entry::targetId),
            new CsvExport.Column<>("reason", Entry::reason),
            new CsvExport.Column<>("outcome", Entry::outcome),
            new CsvExport.Column<>("detail", Entry::detail));

    /** @param reason null only for entries written before every admin action needed one */
    public record Entry(long id, Instant at, String actor, String action, String targetType, String targetId,
                        String reason, String outcome, String detail) {

        public String statusClass() {
            return Arrays.stream(AuditOutcome.values()).filter(known -> known.label().equals(outcome)).findFirst()
                    .map(AuditOutcome::statusClass).orElse("st-neutral");
        }

        /** Where the target can be seen, if the console has a page for it; a bulk action's rows are on its own page. */
        public String targetHref() {
            return switch (targetType) {
                case "idempotency-record" -> "/console/operations/" + targetId;
                case "webhook-event" -> ConsoleLinks.webhookEvent(Long.parseLong(targetId));
                case "outbox-event" -> "/console/outbox";
                case "job" -> "/console/jobs?job=" + targetId;
                case "idempotency-records", "webhook-events", "outbox-events" -> href();
                default -> null;
            };
        }

        public String href() {
            return "/console/audit/" + id;
        }
    }

    /** One row of a bulk action and how it ended there: acted, already-handled, refused or failed. */
    public record Row(String targetType, String targetId, String outcome, String detail) {

        public String targetHref() {
            return switch (targetType) {
                case "idempotency-record" -> "/console/operations/" + targetId;
                case "webhook-event" -> ConsoleLinks.webhookEvent(Long.parseLong(targetId));
                case "outbox-event" -> ConsoleLinks.search("#" + targetId);
                default -> null;
            };
        }

        public String statusClass() {
            return Arrays.stream(AuditOutcome.values()).filter(known -> known.rowLabel().equals(outcome)).findFirst()
                    .orElse(AuditOutcome.ALREADY_RESOLVED).statusClass();
        }
    }

    private final ConsoleReads reads;

    public AuditLog(ConsoleReads reads) {
        this.reads = reads;
    }

    /** An admin action that took one object, alone or as a row of a bulk action, and how it ended there. */
    public record Taken(long auditId, Instant at, String actor, String action, String reason, String outcome) {

        public String href() {
            return "/console/audit/" + auditId;
        }
    }

    /** The admin actions that took the {@code targetType} {@code targetId}, single or bulk, oldest first. */
    List<Taken> takenOf(String targetType, String targetId) {
        return reads.list("""
                        SELECT id, at, actor, action, reason, outcome FROM console_audit
                         WHERE target_type = ? AND target_id = ?
                        UNION ALL
                        SELECT a.id, a.at, a.actor, a.action, a.reason, r.outcome
                          FROM console_audit_rows r JOIN console_audit a ON a.id = r.audit_id
                         WHERE r.target_id = ? AND a.target_type = ?
                         ORDER BY at, id LIMIT 100""",
                row -> new Taken(row.getLong("id"), instant(row, "at"), row.getString("actor"), row.getString("action"),
                        row.getString("reason"), row.getString("outcome")),
                targetType, targetId, targetId, targetType + "s");
    }

    Optional<Entry> entry(long id) {
        return reads.one("""
                        SELECT id, at, actor, action, target_type, target_id, reason, outcome, detail
                          FROM console_audit WHERE id = ?""", AuditLog::entry, id);
    }

    /** The rows of a bulk action, in the order it took them; none for a single action. */
    List<Row> rows(Entry entry) {
        String rowType = entry.targetType().endsWith("s")
                ? entry.targetType().substring(0, entry.targetType().length() - 1) : entry.targetType();
        return reads.list("""
                        SELECT target_id, outcome, detail FROM console_audit_rows WHERE audit_id = ?
                         ORDER BY target_id::bigint""",
                row -> new Row(rowType, row.getString("target_id"), row.getString("outcome"), row.getString("detail")),
                entry.id());
    }

    KeysetPage<Entry> list(Optional<Cursor> after) {
        KeysetQuery query = KeysetQuery.newestFirst("""
                SELECT id, at, actor, action, target_type, target_id, reason, outcome, detail FROM console_audit""",
                "at", "id", KeysetPage.SIZE);
        after.ifPresent(cursor -> query.after(cursor.at(), cursor.number()));
        return reads.page(query, AuditLog::entry, row -> new Cursor(row.at(), row.id()));
    }

    private static Entry entry(ResultSet row) throws SQLException {
        return new Entry(row.getLong("id"), instant(row, "at"), row.getString("actor"), row.getString("action"),
                row.getString("target_type"), row.getString("target_id"), row.getString("reason"),
                row.getString("outcome"), row.getString("detail"));
    }
}
