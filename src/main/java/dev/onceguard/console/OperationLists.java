package dev.onceguard.console;

import dev.onceguard.idempotency.IdempotencyRecord;
import dev.onceguard.idempotency.IdempotencyRecordQueries;
import jakarta.enterprise.context.ApplicationScoped;

import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static dev.onceguard.console.ConsoleReads.nullableInt;
import static dev.onceguard.platform.SqlRows.instant;

/**
 * Keyset pages of idempotency records, newest first, for the operations list and the user view, and the
 * "possible double submission" pairs among them. Each page reads at most {@link KeysetPage#SIZE} + 1 rows through an
 * index: by key, by user, by time, or the records an order and its payments name by primary key.
 */
@ApplicationScoped
public class OperationLists {

    public record UserOrder(String orderId, String status, BigDecimal total, String currency, Instant createdAt,
                            int charges) {

        public String href() {
            return ConsoleLinks.order(orderId);
        }
    }

    private final ConsoleReads reads;
    private final IdempotencyRecordQueries records;

    public OperationLists(ConsoleReads reads, IdempotencyRecordQueries records) {
        this.reads = reads;
        this.records = records;
    }

    public KeysetPage<OperationRow> page(OperationFilter filter) {
        Long[] ofOrder = filter.order() == null ? null : recordsOfOrder(reads, filter.order());
        return newestFirst(new IdempotencyRecordQueries.Filter(filter.key(), filter.user(), ofOrder,
                filter.status() == null ? null : IdempotencyRecord.Status.valueOf(filter.status()), filter.operation(),
                filter.from(), filter.to()), filter.after());
    }

    public KeysetPage<OperationRow> ofUser(String userId, Cursor after) {
        return newestFirst(IdempotencyRecordQueries.Filter.ofUser(userId), after);
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
        records.doubleSubmissions(rows.stream().map(OperationRow::id).toArray(Long[]::new), window.toMillis() / 1000.0,
                row -> pairs.computeIfAbsent(row.getLong("row_id"), id -> new ArrayList<>())
                        .add(new OperationRow.DoubleSubmission(row.getLong("id"), row.getString("idempotency_key"),
                                row.getLong("seconds_apart"))));
        return rows.stream().map(r -> r.withDoubleSubmissions(pairs.getOrDefault(r.id(), List.of()))).toList();
    }

    /** A request the engine answered without running it: a key reused with another payload (422), or a retry (409). */
    public record TurnedAway(Instant at, String requestId, String clientRequestId, String outcome, Integer httpStatus,
                             long recordId, String key) {

        public String href() {
            return ConsoleLinks.operation(recordId);
        }

        public String outcomeText() {
            return new RequestHistory.Request(requestId, clientRequestId, at, outcome, httpStatus).outcomeText();
        }
    }

    /**
     * The user's newest requests turned away (at most {@code limit}): the key reuses, as kept when refused, and the
     * retries told to wait, from the request log. They ran nothing and have no record of their own.
     */
    public List<TurnedAway> turnedAwayOf(String userId, int limit) {
        return records.turnedAwayOf(userId, limit,
                row -> new TurnedAway(instant(row, "at"), row.getString("request_id"),
                        row.getString("client_request_id"), row.getString("outcome"),
                        nullableInt(row, "http_status"), row.getLong("record_id"), row.getString("idempotency_key")));
    }

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

    /** The records an order and its payments name: the order's creation and each payment attempt. */
    static Long[] recordsOfOrder(ConsoleReads reads, String orderId) {
        return reads.list("""
                        SELECT idempotency_record_id FROM orders WHERE order_id = ? AND idempotency_record_id IS NOT NULL
                        UNION ALL
                        SELECT idempotency_record_id FROM payments WHERE order_id = ? AND idempotency_record_id IS NOT NULL""",
                row -> row.getLong(1), orderId, orderId).toArray(Long[]::new);
    }

    private KeysetPage<OperationRow> newestFirst(IdempotencyRecordQueries.Filter filter, Cursor after) {
        List<OperationRow> rows = records.newestFirst(filter, after == null ? null : after.at(),
                after == null ? null : after.number(), KeysetPage.SIZE, OperationRow::of);
        return KeysetPage.of(rows, KeysetPage.SIZE, row -> new Cursor(row.createdAt(), row.id()));
    }
}
