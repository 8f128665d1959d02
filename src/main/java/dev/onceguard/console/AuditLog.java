package dev.onceguard.console;

import jakarta.enterprise.context.ApplicationScoped;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import static dev.onceguard.console.ConsoleReads.instant;

/** The console's audit log ({@code console_audit}), newest first. */
@ApplicationScoped
public class AuditLog {

    static final int PAGE_SIZE = 50;

    static final List<CsvExport.Column<Entry>> CSV = List.of(
            new CsvExport.Column<>("audit_id", Entry::id),
            new CsvExport.Column<>("at", Entry::at),
            new CsvExport.Column<>("actor", Entry::actor),
            new CsvExport.Column<>("action", Entry::action),
            new CsvExport.Column<>("target_type", Entry::targetType),
            new CsvExport.Column<>("target_id", Entry::targetId),
            new CsvExport.Column<>("outcome", Entry::outcome),
            new CsvExport.Column<>("detail", Entry::detail));

    public record Entry(long id, Instant at, String actor, String action, String targetType, String targetId,
                        String outcome, String detail) {

        public String statusClass() {
            for (AuditOutcome known : AuditOutcome.values()) {
                if (known.label().equals(outcome)) {
                    return known.statusClass();
                }
            }
            return "st-neutral";
        }

        /** Where the target can be seen, if the console has a page for it. */
        public String targetHref() {
            return switch (targetType) {
                case "idempotency-record" -> "/console/operations/" + targetId;
                case "webhook-event" -> "/console/webhooks";
                case "outbox-event" -> "/console/outbox";
                case "job" -> "/console/jobs?job=" + targetId;
                default -> null;
            };
        }
    }


    private final ConsoleReads reads;

    public AuditLog(ConsoleReads reads) {
        this.reads = reads;
    }

    KeysetPage<Entry> list(Optional<Cursor> after) {
        StringBuilder sql = new StringBuilder("""
                SELECT id, at, actor, action, target_type, target_id, outcome, detail FROM console_audit WHERE true""");
        List<Object> parameters = new ArrayList<>();
        after.ifPresent(cursor -> {
            sql.append(" AND (at, id) < (?, ?)");
            parameters.add(cursor.at());
            parameters.add(cursor.id());
        });
        sql.append(" ORDER BY at DESC, id DESC LIMIT ?");
        parameters.add(PAGE_SIZE + 1);
        List<Entry> rows = reads.list(sql.toString(), row -> new Entry(row.getLong("id"), instant(row, "at"),
                row.getString("actor"), row.getString("action"), row.getString("target_type"),
                row.getString("target_id"), row.getString("outcome"), row.getString("detail")), parameters.toArray());
        return KeysetPage.of(rows, PAGE_SIZE, row -> new Cursor(row.at(), row.id()));
    }
}
