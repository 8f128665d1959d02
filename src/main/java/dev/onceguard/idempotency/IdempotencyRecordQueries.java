package dev.onceguard.idempotency;

import dev.onceguard.platform.KeysetQuery;
import dev.onceguard.platform.SqlRows;
import jakarta.enterprise.context.ApplicationScoped;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * The engine's read-only queries over its records, its request log and its refused key reuses, for the operator
 * console, which reads {@code idempotency_records} only through them. Nothing here writes. A row carries the columns
 * its statement selects, which the caller maps to its own records. Every statement is bounded by
 * {@link #TIMEOUT_SECONDS}, as the console's other reads are: a page that cannot answer fails instead of holding a
 * connection.
 */
@ApplicationScoped
public class IdempotencyRecordQueries {

    static final int TIMEOUT_SECONDS = 5;

    /** A record as a list shows it. */
    private static final String SUMMARY = """
            id, idempotency_key, user_id, operation, status, left(fingerprint, 12) AS fingerprint_prefix, replay_count,
            resource_type, resource_id, response_status, created_at, expires_at, lease_expires_at""";

    /**
     * The filters of a list of records; a null field does not narrow it.
     *
     * @param ids the records to choose from (those an order and its payments name), null for any
     */
    public record Filter(String key, String user, Long[] ids, IdempotencyRecord.Status status, String operation,
                         Instant from, Instant to) {

        public static Filter ofUser(String user) {
            return new Filter(null, user, null, null, null, null, null);
        }
    }

    /** How many records are PROCESSING with a lease, and how many of those have let it expire. */
    public record Processing(long stuck, long processing) {
    }

    private final SqlRows sql;

    public IdempotencyRecordQueries(SqlRows sql) {
        this.sql = sql;
    }

    /**
     * A page of records matching {@code filter}, newest first, after the record at ({@code afterAt}, {@code afterId})
     * when one is given, {@code pageSize} + 1 rows at most.
     */
    public <T> List<T> newestFirst(Filter filter, Instant afterAt, Long afterId, int pageSize, SqlRows.Row<T> row) {
        KeysetQuery query = KeysetQuery.newestFirst("SELECT " + SUMMARY + " FROM idempotency_records",
                        "created_at", "id", pageSize)
                .whereGiven("idempotency_key = ?", filter.key())
                .whereGiven("user_id = ?", filter.user())
                .whereGiven("id = ANY(?)", filter.ids())
                .whereGiven("status = ?", filter.status() == null ? null : filter.status().name())
                .whereGiven("operation = ?", filter.operation())
                .whereGiven("created_at >= ?", filter.from())
                .whereGiven("created_at < ?", filter.to())
                .after(afterAt, afterId);
        if (filter.status() == IdempotencyRecord.Status.PROCESSING) {
            // every PROCESSING record that has committed holds a lease: read through the index of leases
            query.where("lease_expires_at IS NOT NULL");
        }
        return list(query.sql(), row, query.parameters());
    }

    /** The records {@code ids} but {@code except}, oldest first, {@code limit} at most. */
    public <T> List<T> summaries(Long[] ids, long except, int limit, SqlRows.Row<T> row) {
        return list("SELECT " + SUMMARY + """
                         FROM idempotency_records WHERE id = ANY(?) AND id <> ?
                        ORDER BY created_at, id LIMIT ?""", row, ids, except, limit);
    }

    /** The records {@code ids} that still exist. */
    public <T> List<T> keysAndFingerprints(Long[] ids, SqlRows.Row<T> row) {
        return list("SELECT id, idempotency_key, fingerprint FROM idempotency_records WHERE id = ANY(?)", row, (Object) ids);
    }

    /** Those of the records {@code ids} that still exist, oldest first. */
    public List<Long> existing(Long[] ids) {
        return list("SELECT id FROM idempotency_records WHERE id = ANY(?) ORDER BY created_at, id",
                found -> found.getLong(1), (Object) ids);
    }

    /** One record with its stored answer and how it ended. */
    public <T> Optional<T> record(long id, SqlRows.Row<T> row) {
        return first(list("""
                SELECT id, idempotency_key, user_id, operation, status, fingerprint, recovery_point,
                       lease_expires_at, response_status, response_headers ->> 'Content-Type' AS content_type,
                       response_body, resource_type, resource_id, request_id, client_request_id, replay_count, last_replayed_at,
                       created_at, completed_at, expires_at, ending_recorded, finished_by, finished_by_ref,
                       first_answer_status, first_answered_at
                  FROM idempotency_records WHERE id = ?""", row, id));
    }

    /**
     * For each of the records {@code ids}, the other records of the same user, operation and fingerprint (the same
     * cart) created under another key at most {@code windowSeconds} before or after it, nearest first, three at most.
     */
    public <T> List<T> doubleSubmissions(Long[] ids, double windowSeconds, SqlRows.Row<T> row) {
        return list("""
                SELECT r.id AS row_id, o.id, o.idempotency_key,
                       floor(abs(extract(epoch FROM o.created_at - r.created_at)))::bigint AS seconds_apart
                  FROM idempotency_records r
                  CROSS JOIN LATERAL (
                        SELECT o.id, o.idempotency_key, o.created_at
                          FROM idempotency_records o
                         WHERE o.user_id = r.user_id AND o.fingerprint = r.fingerprint
                           AND o.operation = r.operation AND o.id <> r.id
                           AND o.created_at BETWEEN r.created_at - make_interval(secs => ?) AND r.created_at + make_interval(secs => ?)
                         ORDER BY abs(extract(epoch FROM o.created_at - r.created_at))
                         LIMIT 3) o
                 WHERE r.id = ANY(?)
                 ORDER BY r.id, seconds_apart""", row, windowSeconds, windowSeconds, ids);
    }

    /** The ids of the records of the same cart as {@code recordId} within {@code windowSeconds} of it, under other keys. */
    public List<Long> sameCartWithin(long recordId, double windowSeconds) {
        return list("""
                SELECT s.id FROM idempotency_records r
                  JOIN idempotency_records s ON s.user_id = r.user_id AND s.fingerprint = r.fingerprint
                                            AND s.operation = r.operation AND s.id <> r.id
                                            AND s.created_at BETWEEN r.created_at - make_interval(secs => ?)
                                                                AND r.created_at + make_interval(secs => ?)
                 WHERE r.id = ?""", found -> found.getLong(1), windowSeconds, windowSeconds, recordId);
    }

    /**
     * The nearest records of the same cart as the record {@code id} under other keys: {@code limit} at most created at
     * or before {@code createdAt}, newest first, then {@code limit} at most after it, oldest first.
     */
    public <T> List<T> sameCartAround(long id, String userId, String fingerprint, String operation, Instant createdAt,
                                      int limit, SqlRows.Row<T> row) {
        List<T> found = new ArrayList<>();
        for (String side : List.of("created_at <= ? ORDER BY created_at DESC, id DESC",
                "created_at > ? ORDER BY created_at, id")) {
            found.addAll(list("""
                    SELECT id, idempotency_key, status, created_at,
                           CASE WHEN resource_type = 'order' THEN resource_id END AS order_id
                      FROM idempotency_records
                     WHERE user_id = ? AND fingerprint = ? AND operation = ? AND id <> ? AND""" + " " + side
                    + " LIMIT ?", row, userId, fingerprint, operation, id, createdAt, limit));
        }
        return found;
    }

    /**
     * The user's newest requests turned away (at most {@code limit}): the retries told to wait, from the request log,
     * and the key reuses, as kept when refused.
     */
    public <T> List<T> turnedAwayOf(String userId, int limit, SqlRows.Row<T> row) {
        return list("""
                SELECT at, request_id, client_request_id, outcome, http_status, record_id, idempotency_key FROM (
                    (SELECT l.received_at AS at, l.request_id, l.client_request_id, l.outcome, l.http_status,
                            r.id AS record_id, r.idempotency_key
                       FROM idempotency_records r JOIN idempotency_request_log l ON l.record_id = r.id
                      WHERE r.user_id = ? AND l.outcome = 'IN_PROGRESS'
                      ORDER BY l.received_at DESC LIMIT ?)
                    UNION
                    (SELECT c.created_at, c.request_id, c.client_request_id, 'CONFLICT', 422, c.record_id,
                            c.idempotency_key
                       FROM idempotency_conflicts c
                      WHERE c.user_id = ?
                      ORDER BY c.created_at DESC LIMIT ?)) turned
                 ORDER BY at DESC LIMIT ?""", row, userId, limit, userId, limit, limit);
    }

    /** A page of the request log, newest first, each request with its record (none once the record is gone). */
    public <T> List<T> requestLog(String outcome, Instant from, Instant to, Instant afterAt, Long afterId, int pageSize,
                                  SqlRows.Row<T> row) {
        KeysetQuery requests = KeysetQuery.newestFirst("""
                        SELECT id, record_id, request_id, client_request_id, received_at, outcome, http_status
                          FROM idempotency_request_log""", "received_at", "id", pageSize)
                .whereGiven("outcome = ?", outcome)
                .whereGiven("received_at >= ?", from)
                .whereGiven("received_at < ?", to)
                .after(afterAt, afterId);
        return list("""
                SELECT l.id, l.record_id, l.request_id, l.client_request_id, l.received_at, l.outcome, l.http_status,
                       r.idempotency_key, r.user_id, r.operation
                  FROM (""" + requests.sql() + """
                ) l LEFT JOIN idempotency_records r ON r.id = l.record_id
                 ORDER BY l.received_at DESC, l.id DESC""", row, requests.parameters());
    }

    /** The key reuses refused for the record, oldest first, with the body the record was created with. */
    public <T> List<T> conflictsOf(long recordId, SqlRows.Row<T> row) {
        return list("""
                SELECT c.created_at, c.request_id, c.client_request_id, c.original_fingerprint, c.conflicting_fingerprint,
                       r.request_body, c.refused_body
                  FROM idempotency_conflicts c JOIN idempotency_records r ON r.id = c.record_id
                 WHERE c.record_id = ? ORDER BY c.created_at, c.id""", row, recordId);
    }

    /** The request bodies the records {@code ids} were created with, by record id (none kept: no entry). */
    public Map<Long, String> requestBodies(Long[] ids) {
        return list("SELECT id, request_body FROM idempotency_records WHERE id = ANY(?) AND request_body IS NOT NULL",
                found -> Map.entry(found.getLong(1), found.getString(2)), (Object) ids).stream()
                .collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue));
    }

    /**
     * PROCESSING records whose lease expired before {@code now}, oldest first, after the record at ({@code afterAt},
     * {@code afterId}) when one is given, {@code pageSize} + 1 rows at most.
     */
    public <T> List<T> abandoned(Instant now, Instant afterAt, Long afterId, int pageSize, SqlRows.Row<T> row) {
        KeysetQuery query = KeysetQuery.oldestFirst("""
                        SELECT id, user_id, operation, idempotency_key, recovery_point, created_at,
                               lease_expires_at, resource_type, resource_id
                          FROM idempotency_records""", "created_at", "id", pageSize)
                .where("status = 'PROCESSING' AND lease_expires_at <= ?", now)
                .after(afterAt, afterId);
        return list(query.sql(), row, query.parameters());
    }

    /** How many records are PROCESSING with an expired lease, counted up to {@code cap}. */
    public long abandonedCount(Instant now, long cap) {
        return list("""
                SELECT count(*) FROM (SELECT 1 FROM idempotency_records
                                       WHERE status = 'PROCESSING' AND lease_expires_at <= ? LIMIT ?) capped""",
                found -> found.getLong(1), now, cap).get(0);
    }

    /**
     * Abandoned records a bulk action would take, oldest first, {@code limit} at most: those still at the recovery
     * point {@link IdempotencyService#STARTED} (no external call can have happened), or, with {@code pastStart}, those
     * of {@code operation} beyond it.
     */
    public <T> List<T> abandonedForBulk(Instant now, boolean pastStart, String operation, int limit,
                                        SqlRows.Row<T> row) {
        if (!pastStart) {
            return list("""
                    SELECT id, created_at AS at FROM idempotency_records
                     WHERE status = 'PROCESSING' AND lease_expires_at <= ? AND recovery_point = ?
                     ORDER BY created_at, id LIMIT ?""", row, now, IdempotencyService.STARTED, limit);
        }
        return list("""
                SELECT id, created_at AS at FROM idempotency_records
                 WHERE status = 'PROCESSING' AND lease_expires_at <= ? AND recovery_point <> ? AND operation = ?
                 ORDER BY created_at, id LIMIT ?""", row, now, IdempotencyService.STARTED, operation, limit);
    }

    /** A record's state for an admin action. */
    public <T> Optional<T> state(long recordId, Instant now, SqlRows.Row<T> row) {
        return first(list("""
                SELECT status, operation, recovery_point, lease_expires_at <= ? AS lease_expired
                  FROM idempotency_records WHERE id = ?""", row, now, recordId));
    }

    public Processing processing() {
        return list("""
                SELECT count(*) FILTER (WHERE lease_expires_at <= now()) AS stuck, count(*) AS processing
                  FROM idempotency_records WHERE status = 'PROCESSING' AND lease_expires_at IS NOT NULL""",
                found -> new Processing(found.getLong("stuck"), found.getLong("processing"))).get(0);
    }

    /**
     * Records whose key equals {@code low}, or lies in [{@code low}, {@code high}) when {@code high} is given, by key,
     * {@code limit} at most.
     */
    public <T> List<T> withKey(String low, String high, int limit, SqlRows.Row<T> row) {
        return list("SELECT id, idempotency_key, user_id, operation, status, created_at FROM idempotency_records"
                + " WHERE " + matching("idempotency_key", high) + " ORDER BY idempotency_key LIMIT ?",
                row, matched(low, high, limit));
    }

    /** The users with records whose id is {@code low} or in [{@code low}, {@code high}), by id, {@code limit} at most. */
    public List<String> usersMatching(String low, String high, int limit) {
        return list("SELECT DISTINCT user_id FROM idempotency_records WHERE " + matching("user_id", high)
                + " ORDER BY user_id LIMIT ?", found -> found.getString(1), matched(low, high, limit));
    }

    /**
     * Where a request id matching {@code low} (or in [{@code low}, {@code high})) was seen: a record's first request,
     * its request log, a refused key reuse; by request id and record, {@code limit} at most.
     */
    public <T> List<T> requestsMatching(String low, String high, int perSource, int limit, SqlRows.Row<T> row) {
        return requestsSeen("request_id", "request_id, record_id", low, high, perSource, limit, row);
    }

    /**
     * Where a client's {@code X-Request-Id} matching {@code low} (or in [{@code low}, {@code high})) was seen, as
     * {@link #requestsMatching}, by user and time, {@code limit} at most.
     */
    public <T> List<T> clientRequestsMatching(String low, String high, int perSource, int limit, SqlRows.Row<T> row) {
        return requestsSeen("client_request_id", "user_id, min(at), request_id", low, high, perSource, limit, row);
    }

    /**
     * The requests whose {@code idColumn} matches, from the three places a request leaves its ids, each request with
     * its record and the user it came from (the record's, for a row of the request log), in {@code order}.
     */
    private <T> List<T> requestsSeen(String idColumn, String order, String low, String high, int perSource, int limit,
                                     SqlRows.Row<T> row) {
        return list("""
                SELECT user_id, request_id, client_request_id, record_id, min(at) AS at,
                       string_agg(DISTINCT what, ', ') AS what FROM (
                    (SELECT user_id, request_id, client_request_id, id AS record_id, created_at AS at,
                            'first request' AS what
                       FROM idempotency_records WHERE %1$s
                      ORDER BY %2$s LIMIT ?)
                    UNION ALL
                    (SELECT r.user_id, l.request_id, l.client_request_id, l.record_id, l.received_at AS at,
                            lower(l.outcome) AS what
                       FROM idempotency_request_log l JOIN idempotency_records r ON r.id = l.record_id
                      WHERE %3$s
                      ORDER BY l.%2$s LIMIT ?)
                    UNION ALL
                    (SELECT user_id, request_id, client_request_id, record_id, created_at, 'refused key reuse'
                       FROM idempotency_conflicts WHERE %1$s
                      ORDER BY %2$s LIMIT ?)) found
                 GROUP BY user_id, request_id, client_request_id, record_id
                 ORDER BY %4$s
                 LIMIT ?""".formatted(matching(idColumn, high), idColumn, matching("l." + idColumn, high), order),
                row, inThreeSources(low, high, perSource, limit));
    }

    private static String matching(String column, String high) {
        return high == null ? column + " = ?" : "(" + column + " >= ? AND " + column + " < ?)";
    }

    /** The parameters of a search in the records, the request log and the refused key reuses, then the overall limit. */
    private static Object[] inThreeSources(String low, String high, int perSource, int limit) {
        List<Object> parameters = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            parameters.addAll(List.of(matched(low, high, perSource)));
        }
        parameters.add(limit);
        return parameters.toArray();
    }

    private static Object[] matched(String low, String high, int limit) {
        return high == null ? new Object[] {low, limit} : new Object[] {low, high, limit};
    }

    private <T> List<T> list(String statement, SqlRows.Row<T> row, Object... parameters) {
        return sql.listWithin(TIMEOUT_SECONDS, statement, row, parameters);
    }

    private static <T> Optional<T> first(List<T> rows) {
        return rows.isEmpty() ? Optional.empty() : Optional.ofNullable(rows.get(0));
    }
}
