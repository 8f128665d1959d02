package dev.onceguard.console;

import dev.onceguard.idempotency.IdempotencyRecord;
import jakarta.enterprise.context.ApplicationScoped;

import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static dev.onceguard.console.ConsoleReads.instant;
import static dev.onceguard.console.ConsoleReads.nullableInt;

/**
 * Keyset pages of idempotency records, newest first, for the operations list and the user view, and the
 * "possible double submission" pairs among them. Each page reads at most {@link #PAGE_SIZE} + 1 rows through an
 * index: by key, by user, by time, or the records an order and its payments name by primary key.
 */
@ApplicationScoped
public class OperationLists {

    public static final int PAGE_SIZE = 50;

    /** An order of a user with its number of successful charges. */
    public record UserOrder(String orderId, String status, BigDecimal total, String currency, Instant createdAt,
                            int charges) {

        public String href() {
            return ConsoleLinks.order(orderId);
        }
    }

    private final ConsoleReads reads;

    public OperationLists(ConsoleReads reads) {
        this.reads = reads;
    }

    public KeysetPage<OperationRow> page(OperationFilter filter) {
        List<String> conditions = new ArrayList<>();
        List<Object> parameters = new ArrayList<>();
        if (filter.key() != null) {
            conditions.add("idempotency_key = ?");
            parameters.add(filter.key());
        }
        if (filter.user() != null) {
            conditions.add("user_id = ?");
            parameters.add(filter.user());
        }
        if (filter.order() != null) {
            conditions.add("""
                    id IN (SELECT idempotency_record_id FROM orders WHERE order_id = ?
                           UNION ALL
                           SELECT idempotency_record_id FROM payments WHERE order_id = ?)""");
            parameters.add(filter.order());
            parameters.add(filter.order());
        }
        if (filter.status() != null) {
            IdempotencyRecord.Status status = IdempotencyRecord.Status.valueOf(filter.status());
            conditions.add("status = ?");
            parameters.add(status.name());
            if (status == IdempotencyRecord.Status.PROCESSING) {
                // every PROCESSING record that has committed holds a lease: read through the index of leases
                conditions.add("lease_expires_at IS NOT NULL");
            }
        }
        if (filter.operation() != null) {
            conditions.add("operation = ?");
            parameters.add(filter.operation());
        }
        if (filter.from() != null) {
            conditions.add("created_at >= ?");
            parameters.add(filter.from());
        }
        if (filter.to() != null) {
            conditions.add("created_at < ?");
            parameters.add(filter.to());
        }
        return newestFirst(conditions, parameters, filter.after());
    }

    /** The user's records, newest first. */
    public KeysetPage<OperationRow> ofUser(String userId, Cursor after) {
        List<Object> parameters = new ArrayList<>();
        parameters.add(userId);
        return newestFirst(new ArrayList<>(List.of("user_id = ?")), parameters, after);
    }

    /**
     * The rows with the other records of the same user, operation and fingerprint (the same cart) created under
     * another key at most {@code window} before or after them, nearest first (three at most per row).
     */
    public List<OperationRow> withDoubleSubmissions(List<OperationRow> rows, Duration window) {
        if (rows.isEmpty()) {
            return rows;
        }
        Map<Long, List<OperationRow.DoubleSubmission>> pairs = new HashMap<>();
        reads.list("""
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
                         ORDER BY r.id, seconds_apart""",
                row -> pairs.computeIfAbsent(row.getLong("row_id"), id -> new ArrayList<>())
                        .add(new OperationRow.DoubleSubmission(row.getLong("id"), row.getString("idempotency_key"),
                                row.getLong("seconds_apart"))),
                seconds(window), seconds(window), rows.stream().map(OperationRow::id).toArray(Long[]::new));
        return rows.stream().map(r -> r.withDoubleSubmissions(pairs.getOrDefault(r.id(), List.of()))).toList();
    }

    /** A request the engine answered without running it: a key reused with another payload (422), or a retry (409). */
    public record TurnedAway(Instant at, String requestId, String clientRequestId, String outcome, Integer httpStatus,
                             long recordId, String key) {

        public String href() {
            return ConsoleLinks.operation(recordId);
        }

        public String outcomeText() {
            return "CONFLICT".equals(outcome) ? "refused: key reused with another payload"
                    : "refused: the first request was still running";
        }
    }

    /**
     * The user's newest requests turned away (at most {@code limit}): the key reuses, as kept when refused, and the
     * retries told to wait, from the request log. They ran nothing and have no record of their own.
     */
    public List<TurnedAway> turnedAwayOf(String userId, int limit) {
        return reads.list("""
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
                         ORDER BY at DESC LIMIT ?""",
                row -> new TurnedAway(instant(row, "at"), row.getString("request_id"),
                        row.getString("client_request_id"), row.getString("outcome"),
                        nullableInt(row, "http_status"), row.getLong("record_id"), row.getString("idempotency_key")),
                userId, limit, userId, limit, limit);
    }

    /** The user's newest orders (at most {@code limit}) with their successful charges. */
    public List<UserOrder> ordersOf(String userId, int limit) {
        return reads.list("""
                        SELECT o.order_id, o.status, o.total, o.currency, o.created_at,
                               (SELECT count(*) FROM payments p WHERE p.order_id = o.order_id AND p.status = 'SUCCEEDED') AS charges
                          FROM orders o
                         WHERE o.user_id = ?
                         ORDER BY o.order_id DESC
                         LIMIT ?""",
                row -> new UserOrder(row.getString("order_id"), row.getString("status"), row.getBigDecimal("total"),
                        row.getString("currency"), instant(row, "created_at"), row.getInt("charges")),
                userId, limit);
    }

    private static double seconds(Duration window) {
        return window.toMillis() / 1000.0;
    }

    private KeysetPage<OperationRow> newestFirst(List<String> conditions, List<Object> parameters, Cursor after) {
        if (after != null) {
            conditions.add("(created_at, id) < (?, ?)");
            parameters.add(after.at());
            parameters.add(after.id());
        }
        parameters.add(PAGE_SIZE + 1);
        List<OperationRow> rows = reads.list("SELECT " + OperationRow.COLUMNS + " FROM idempotency_records"
                        + (conditions.isEmpty() ? "" : " WHERE " + String.join(" AND ", conditions))
                        + " ORDER BY created_at DESC, id DESC LIMIT ?",
                OperationRow::of, parameters.toArray());
        return KeysetPage.of(rows, PAGE_SIZE, row -> new Cursor(row.createdAt(), row.id()));
    }
}
