package dev.onceguard.checkout;

import dev.onceguard.idempotency.ClaimWrites;
import dev.onceguard.platform.SqlRows;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.transaction.Transactional;

import java.math.BigDecimal;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Every statement on {@code orders} and {@code order_items}, as plain JDBC in the caller's transaction
 * ({@link SqlRows}) or, for a new order, as writes of its record's claim ({@link ClaimWrites}). Status moves are
 * {@link OrderStates}' conditional UPDATE.
 */
@ApplicationScoped
public class OrderRows {

    /** What a payment needs of the order it pays. */
    public record Payable(Order.Status status, BigDecimal total, String currency) {
    }

    private static final String COLUMNS = """
            o.order_id, o.user_id, o.status, o.total, o.currency, o.created_at, i.product_id, i.quantity, i.unit_price""";

    private final SqlRows sql;

    public OrderRows(SqlRows sql) {
        this.sql = sql;
    }

    /**
     * The claim's writes that insert the order and its lines (line_no from 0), the order naming the record the claim
     * inserted.
     */
    public ClaimWrites inserting(String orderId, String userId, Order.Status status, BigDecimal total, String currency,
                                 String requestId, Instant now, List<Order.Line> lines) {
        List<Object> lineValues = new ArrayList<>();
        lines.forEach(line -> lineValues.addAll(List.of(line.productId(), line.quantity(), line.unitPrice())));
        StringBuilder lineRows = new StringBuilder();
        for (int i = 0; i < lines.size(); i++) {
            lineRows.append(i == 0 ? "" : ", ")
                    .append("(").append(i).append(", CAST(? AS text), CAST(? AS integer), CAST(? AS numeric))");
        }
        return ClaimWrites.query("order_row", """
                        INSERT INTO orders (order_id, user_id, status, total, currency, request_id, idempotency_record_id,
                                            created_at, updated_at)
                        SELECT CAST(? AS text), CAST(? AS text), CAST(? AS text), CAST(? AS numeric), CAST(? AS text),
                               CAST(? AS text), claim.id, CAST(? AS timestamptz), CAST(? AS timestamptz)
                          FROM claim
                        RETURNING order_id""",
                        List.of(orderId, userId, status.name(), total, currency, requestId, now, now))
                .and(ClaimWrites.query("order_lines", """
                        INSERT INTO order_items (order_id, line_no, product_id, quantity, unit_price)
                        SELECT o.order_id, l.line_no, l.product_id, l.quantity, l.unit_price
                          FROM order_row o, (VALUES %s) AS l(line_no, product_id, quantity, unit_price)""".formatted(
                                lineRows), lineValues));
    }

    /** The order if it exists and belongs to the user; another user's order is as absent as an unknown one. */
    @Transactional
    public Optional<Order> findOwned(String orderId, String userId) {
        return orders(sql.list("SELECT " + COLUMNS + """
                 FROM orders o JOIN order_items i ON i.order_id = o.order_id
                WHERE o.order_id = ? AND o.user_id = ?
                ORDER BY i.line_no""", OrderRows::line, orderId, userId)).stream().findFirst();
    }

    /** One keyset page of the user's orders, newest first (order ids are time-ordered). */
    @Transactional
    public List<Order> pageOf(String userId, String after, int limit) {
        return orders(sql.list("SELECT " + COLUMNS + """
                 FROM (SELECT * FROM orders
                        WHERE user_id = ? AND (CAST(? AS text) IS NULL OR order_id < ?)
                        ORDER BY order_id DESC LIMIT ?) o
                 JOIN order_items i ON i.order_id = o.order_id
                ORDER BY o.order_id DESC, i.line_no""", OrderRows::line, userId, after, after, limit));
    }

    /**
     * The user's order locked until the caller's transaction ends (FOR UPDATE), so that no two payments of it check
     * its status at once; empty when the user has no order with this id.
     */
    @Transactional(Transactional.TxType.MANDATORY)
    public Optional<Payable> lockForPayment(String orderId, String userId) {
        return sql.list("SELECT status, total, currency FROM orders WHERE order_id = ? AND user_id = ? FOR UPDATE",
                row -> new Payable(Order.Status.valueOf(row.getString(1)), row.getBigDecimal(2), row.getString(3)),
                orderId, userId).stream().findFirst();
    }

    /** A payment attempt that may still charge: CREATED, PENDING, REQUIRES_ACTION or UNKNOWN. */
    @Transactional(Transactional.TxType.MANDATORY)
    public boolean hasAttemptInFlight(String orderId) {
        return !sql.list("""
                SELECT 1 FROM payments WHERE order_id = ?
                   AND status IN ('CREATED', 'PENDING', 'REQUIRES_ACTION', 'UNKNOWN') LIMIT 1""",
                row -> row.getInt(1), orderId).isEmpty();
    }

    /**
     * Up to {@code limit} orders AWAITING_PAYMENT placed before {@code cutoff} with no attempt in flight as this
     * statement sees them, oldest first, locked until the caller's transaction ends (FOR UPDATE, the lock a payment of
     * the order takes first); those another transaction holds now (a payment starting, another replica's expiry) are
     * skipped, not waited for. An attempt committed while this statement ran is seen only by a later statement:
     * {@link #hasAttemptInFlight} asks again under the lock.
     */
    @Transactional(Transactional.TxType.MANDATORY)
    public List<String> lockUnpaidPlacedBefore(Instant cutoff, int limit) {
        return sql.list("""
                SELECT o.order_id FROM orders o
                 WHERE o.status = 'AWAITING_PAYMENT' AND o.created_at < ?
                   AND NOT EXISTS (SELECT 1 FROM payments p WHERE p.order_id = o.order_id
                                      AND p.status IN ('CREATED', 'PENDING', 'REQUIRES_ACTION', 'UNKNOWN'))
                 ORDER BY o.created_at LIMIT ? FOR UPDATE OF o SKIP LOCKED""", row -> row.getString(1), cutoff, limit);
    }

    /** Gives the order's units of limited stock back (the same product on two lines, their sum). */
    @Transactional(Transactional.TxType.MANDATORY)
    public void returnStock(String orderId) {
        sql.update("""
                UPDATE products p SET stock = p.stock + i.quantity
                  FROM (SELECT product_id, sum(quantity) AS quantity FROM order_items WHERE order_id = ?
                         GROUP BY product_id) i
                 WHERE p.product_id = i.product_id AND p.stock IS NOT NULL""", orderId);
    }

    /** What fulfilling a paid order needs to know of it: whose it is, its total, whether any line is DIGITAL. */
    public record Fulfilable(String orderId, String userId, BigDecimal total, boolean hasDigitalItems) {
    }

    /** The order's {@link Fulfilable} facts; empty when no order has this id. */
    public Optional<Fulfilable> fulfilable(String orderId) {
        return sql.list("""
                        SELECT o.user_id, o.total,
                               EXISTS (SELECT 1 FROM order_items i JOIN products p ON p.product_id = i.product_id
                                        WHERE i.order_id = o.order_id AND p.kind = 'DIGITAL')
                          FROM orders o WHERE o.order_id = ?""",
                row -> new Fulfilable(orderId, row.getString(1), row.getBigDecimal(2), row.getBoolean(3)), orderId)
                .stream().findFirst();
    }

    /** One row of {@link #COLUMNS}: the order's columns and one of its lines. */
    private record OrderLine(String orderId, String userId, Order.Status status, BigDecimal total, String currency,
                             Instant createdAt, Order.Line line) {
    }

    private static OrderLine line(ResultSet row) throws SQLException {
        return new OrderLine(row.getString("order_id"), row.getString("user_id"),
                Order.Status.valueOf(row.getString("status")), row.getBigDecimal("total"), row.getString("currency"),
                SqlRows.instant(row, "created_at"), new Order.Line(row.getString("product_id"), row.getInt("quantity"),
                row.getBigDecimal("unit_price")));
    }

    /** Rows ordered by order then line, folded into orders. */
    private static List<Order> orders(List<OrderLine> rows) {
        Map<String, OrderLine> heads = new LinkedHashMap<>();
        Map<String, List<Order.Line>> lines = new LinkedHashMap<>();
        for (OrderLine row : rows) {
            heads.putIfAbsent(row.orderId(), row);
            lines.computeIfAbsent(row.orderId(), id -> new ArrayList<>()).add(row.line());
        }
        return heads.values().stream().map(head -> new Order(head.orderId(), head.userId(), head.status(),
                head.total(), head.currency(), head.createdAt(), List.copyOf(lines.get(head.orderId())))).toList();
    }
}
