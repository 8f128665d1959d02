package dev.onceguard.console;

import jakarta.enterprise.context.ApplicationScoped;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import static dev.onceguard.console.ConsoleReads.instant;

/** Idempotency keys reused with another payload (the 422s), newest first, as evidence for support. */
@ApplicationScoped
public class KeyConflicts {

    static final int PAGE_SIZE = 50;
    private static final int MAX_FILTER_LENGTH = 255;
    private static final int FINGERPRINT_PREFIX = 12;

    public record Conflict(long id, long recordId, String userId, String operation, String key,
                           String originalFingerprint, String conflictingFingerprint, String requestId,
                           String clientRequestId, Instant createdAt, boolean bodiesKept, List<BodyDiff.Change> changes) {

        public String originalPrefix() {
            return prefix(originalFingerprint);
        }

        public String conflictingPrefix() {
            return prefix(conflictingFingerprint);
        }

        private static String prefix(String fingerprint) {
            return fingerprint.length() <= FINGERPRINT_PREFIX ? fingerprint : fingerprint.substring(0, FINGERPRINT_PREFIX);
        }
    }

    static final List<CsvExport.Column<Conflict>> CSV = List.of(
            new CsvExport.Column<>("created_at", Conflict::createdAt),
            new CsvExport.Column<>("record_id", Conflict::recordId),
            new CsvExport.Column<>("user_id", Conflict::userId),
            new CsvExport.Column<>("operation", Conflict::operation),
            new CsvExport.Column<>("idempotency_key", Conflict::key),
            new CsvExport.Column<>("request_id", Conflict::requestId),
            new CsvExport.Column<>("client_request_id", Conflict::clientRequestId),
            new CsvExport.Column<>("changed_fields", c -> String.join(" ", c.changes().stream().map(BodyDiff.Change::field).toList())),
            new CsvExport.Column<>("original_fingerprint", Conflict::originalFingerprint),
            new CsvExport.Column<>("conflicting_fingerprint", Conflict::conflictingFingerprint));

    public record Filter(String user, String key) {

        static Filter of(String user, String key) {
            return new Filter(wanted(user, "user"), wanted(key, "key"));
        }

        private static String wanted(String value, String name) {
            if (value == null || value.isEmpty()) {
                return null;
            }
            if (value.length() > MAX_FILTER_LENGTH) {
                throw ConsoleRequestRejected.badRequest("The " + name + " filter is longer than " + MAX_FILTER_LENGTH
                        + " characters; no " + name + " is that long.");
            }
            return value;
        }

        public boolean any() {
            return user != null || key != null;
        }
    }


    private final ConsoleReads reads;
    private final RequestLogs bodies;

    public KeyConflicts(ConsoleReads reads, RequestLogs bodies) {
        this.reads = reads;
        this.bodies = bodies;
    }

    KeysetPage<Conflict> list(Filter filter, Optional<Cursor> after) {
        StringBuilder sql = new StringBuilder("""
                SELECT id, record_id, user_id, operation, idempotency_key, original_fingerprint,
                       conflicting_fingerprint, request_id, client_request_id, created_at, refused_body,
                       (SELECT r.request_body FROM idempotency_records r WHERE r.id = record_id) AS request_body
                  FROM idempotency_conflicts WHERE true""");
        List<Object> parameters = new ArrayList<>();
        if (filter.user() != null) {
            sql.append(" AND user_id = ?");
            parameters.add(filter.user());
        }
        if (filter.key() != null) {
            sql.append(" AND idempotency_key = ?");
            parameters.add(filter.key());
        }
        after.ifPresent(cursor -> {
            sql.append(" AND (created_at, id) < (?, ?)");
            parameters.add(cursor.at());
            parameters.add(cursor.id());
        });
        sql.append(" ORDER BY created_at DESC, id DESC LIMIT ?");
        parameters.add(PAGE_SIZE + 1);
        List<Conflict> rows = reads.list(sql.toString(), row -> new Conflict(row.getLong("id"), row.getLong("record_id"),
                row.getString("user_id"), row.getString("operation"), row.getString("idempotency_key"),
                row.getString("original_fingerprint"), row.getString("conflicting_fingerprint"),
                row.getString("request_id"), row.getString("client_request_id"), instant(row, "created_at"),
                bodies.body(row, "request_body") != null && bodies.body(row, "refused_body") != null,
                BodyDiff.between(bodies.body(row, "request_body"), bodies.body(row, "refused_body"))),
                parameters.toArray());
        return KeysetPage.of(rows, PAGE_SIZE, row -> new Cursor(row.createdAt(), row.id()));
    }
}
