package dev.onceguard.console;

import com.fasterxml.jackson.databind.JsonNode;
import dev.onceguard.idempotency.IdempotencyRecordQueries;
import dev.onceguard.platform.KeysetQuery;
import jakarta.enterprise.context.ApplicationScoped;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static dev.onceguard.platform.SqlRows.instant;

/** Idempotency keys reused with another payload (the 422s), newest first, as evidence for support. */
@ApplicationScoped
public class KeyConflicts {

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

        Conflict withBodies(JsonNode original, JsonNode refused) {
            return new Conflict(id, recordId, userId, operation, key, originalFingerprint, conflictingFingerprint,
                    requestId, clientRequestId, createdAt, original != null && refused != null, BodyDiff.between(original, refused));
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
    private final IdempotencyRecordQueries records;
    private final RequestLogs bodies;

    public KeyConflicts(ConsoleReads reads, IdempotencyRecordQueries records, RequestLogs bodies) {
        this.reads = reads;
        this.records = records;
        this.bodies = bodies;
    }

    KeysetPage<Conflict> list(Filter filter, Optional<Cursor> after) {
        KeysetQuery query = KeysetQuery.newestFirst("""
                        SELECT id, record_id, user_id, operation, idempotency_key, original_fingerprint,
                               conflicting_fingerprint, request_id, client_request_id, created_at, refused_body
                          FROM idempotency_conflicts""", "created_at", "id", KeysetPage.SIZE)
                .whereGiven("user_id = ?", filter.user())
                .whereGiven("idempotency_key = ?", filter.key());
        after.ifPresent(cursor -> query.after(cursor.at(), cursor.number()));
        record Refused(Conflict conflict, String refusedBody) {
        }
        List<Refused> read = reads.list(query.sql(), row -> new Refused(new Conflict(row.getLong("id"),
                row.getLong("record_id"), row.getString("user_id"), row.getString("operation"),
                row.getString("idempotency_key"), row.getString("original_fingerprint"),
                row.getString("conflicting_fingerprint"), row.getString("request_id"),
                row.getString("client_request_id"), instant(row, "created_at"),
                false, List.of()), row.getString("refused_body")), query.parameters());
        Map<Long, String> originalBodies = records.requestBodies(
                read.stream().map(refused -> refused.conflict().recordId()).toArray(Long[]::new));
        List<Conflict> rows = read.stream().map(refused -> refused.conflict().withBodies(
                bodies.parsed(originalBodies.get(refused.conflict().recordId())),
                bodies.parsed(refused.refusedBody()))).toList();
        return KeysetPage.of(rows, KeysetPage.SIZE, row -> new Cursor(row.createdAt(), row.id()));
    }
}
