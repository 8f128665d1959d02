package dev.onceguard.idempotency;

import io.agroal.api.AgroalDataSource;
import jakarta.enterprise.context.ApplicationScoped;

import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.List;
import java.util.function.Function;

/**
 * The request log's batch writes in PostgreSQL. Plain JDBC rather than {@link dev.onceguard.platform.SqlRows}: the
 * batch's settings are local to its transaction and its advisory locks must be held by the connection that prunes, so
 * every statement runs on one connection the batch holds, and its arrays are typed (timestamptz, integer) beyond
 * what {@code SqlRows} binds.
 */
@ApplicationScoped
class RequestLogWrites {

    private final AgroalDataSource dataSource;

    public RequestLogWrites(AgroalDataSource dataSource) {
        this.dataSource = dataSource;
    }

    /**
     * Writes one batch of the request log: the rows (those of records deleted meanwhile are skipped), the replay
     * counts, and the pruning that keeps each bounded record (one a retry reached) at its first and last
     * {@code keptPerEnd} rows. The batch commits asynchronously: a crash loses log rows and counts only.
     *
     * <p>The pruning reads live rows only, so it stays cheap however many rows it has deleted before (a deleted row's
     * index entry stays until VACUUM, and autovacuum may be off or behind). After every batch a record holds its first
     * N rows and at most N more; a batch that adds k rows to a record therefore pushes out exactly the rows ranked
     * N+1 to N+k from its newest, those of them that are not among its first N. Both are found by walking the
     * record's end of {@code idempotency_request_log_by_record} (N and N+k entries), never its deleted middle; the
     * transaction turns off sequential and bitmap scans, which would read the whole record, so that this holds
     * whatever the statistics say. Two replicas flushing the same record at once prune one after the other: the batch
     * first takes a transaction-level advisory lock per bounded record, keyed by its id (the service's only advisory
     * locks), in id order; a row lock would also hold up the record's own writes, such as a payment's next phase.
     */
    void append(List<RequestLog.Entry> entries, List<RequestLog.Replays> replays, List<RequestLog.Bounded> bounded,
                int keptPerEnd) {
        try (Connection connection = dataSource.getConnection()) {
            try (PreparedStatement settings = connection.prepareStatement("""
                    SELECT set_config('synchronous_commit', 'off', true), set_config('enable_seqscan', 'off', true),
                           set_config('enable_bitmapscan', 'off', true)""")) {
                settings.executeQuery().close();
            }
            Array boundedIds = array(connection, "bigint", bounded, RequestLog.Bounded::recordId);
            if (!bounded.isEmpty()) {
                try (PreparedStatement lock = connection.prepareStatement("""
                        SELECT pg_advisory_xact_lock(b.id) FROM unnest(?::bigint[]) AS b(id) ORDER BY b.id""")) {
                    lock.setArray(1, boundedIds);
                    lock.executeQuery().close();
                }
            }
            try (PreparedStatement append = connection.prepareStatement("""
                    INSERT INTO idempotency_request_log (record_id, request_id, client_request_id, received_at, outcome,
                                                         http_status)
                    SELECT e.record_id, e.request_id, e.client_request_id, e.received_at, e.outcome, e.http_status
                      FROM unnest(?::bigint[], ?::text[], ?::text[], ?::timestamptz[], ?::text[], ?::int[])
                           AS e(record_id, request_id, client_request_id, received_at, outcome, http_status)
                     WHERE EXISTS (SELECT 1 FROM idempotency_records r WHERE r.id = e.record_id)""")) {
                append.setArray(1, array(connection, "bigint", entries, RequestLog.Entry::recordId));
                append.setArray(2, array(connection, "text", entries, RequestLog.Entry::requestId));
                append.setArray(3, array(connection, "text", entries, RequestLog.Entry::clientRequestId));
                append.setArray(4, array(connection, "timestamptz", entries, e -> e.receivedAt().toString()));
                append.setArray(5, array(connection, "text", entries, e -> e.outcome().name()));
                append.setArray(6, array(connection, "integer", entries, RequestLog.Entry::httpStatus));
                append.executeUpdate();
            }
            if (!replays.isEmpty()) {
                try (PreparedStatement count = connection.prepareStatement("""
                        UPDATE idempotency_records r
                           SET replay_count = r.replay_count + c.replays,
                               last_replayed_at = GREATEST(r.last_replayed_at, c.last_at)
                          FROM unnest(?::bigint[], ?::int[], ?::timestamptz[]) AS c(id, replays, last_at)
                         WHERE r.id = c.id""")) {
                    count.setArray(1, array(connection, "bigint", replays, RequestLog.Replays::recordId));
                    count.setArray(2, array(connection, "integer", replays, RequestLog.Replays::count));
                    count.setArray(3, array(connection, "timestamptz", replays, r -> r.lastAt().toString()));
                    count.executeUpdate();
                }
            }
            if (bounded.isEmpty()) {
                return;
            }
            try (PreparedStatement prune = connection.prepareStatement("""
                    DELETE FROM idempotency_request_log l
                     USING unnest(?::bigint[], ?::int[]) AS b(record_id, added)
                           CROSS JOIN LATERAL (SELECT f.received_at, f.id
                                                 FROM idempotency_request_log f
                                                WHERE f.record_id = b.record_id
                                                ORDER BY f.received_at, f.id
                                               OFFSET ? LIMIT 1) AS last_of_first
                           CROSS JOIN LATERAL (SELECT t.id
                                                 FROM idempotency_request_log t
                                                WHERE t.record_id = b.record_id
                                                  AND (t.received_at, t.id) > (last_of_first.received_at, last_of_first.id)
                                                ORDER BY t.received_at DESC, t.id DESC
                                               OFFSET ? LIMIT b.added) AS surplus
                     WHERE l.id = surplus.id""")) {
                prune.setArray(1, boundedIds);
                prune.setArray(2, array(connection, "integer", bounded, RequestLog.Bounded::rows));
                prune.setInt(3, keptPerEnd - 1);
                prune.setInt(4, keptPerEnd);
                prune.executeUpdate();
            }
        } catch (SQLException e) {
            throw new IllegalStateException("request log not appended", e);
        }
    }

    /** One column of {@code rows} as an SQL array of {@code type}. */
    private static <R> Array array(Connection connection, String type, List<R> rows, Function<R, Object> column)
            throws SQLException {
        return connection.createArrayOf(type, rows.stream().map(column).toArray());
    }
}
