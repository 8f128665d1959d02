package dev.onceguard.checkout;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.persistence.EntityManager;
import jakarta.transaction.Transactional;
import org.hibernate.query.NativeQuery;
import org.hibernate.type.StandardBasicTypes;

import java.math.BigDecimal;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Every statement on {@code orders} and {@code order_items}, as native queries in the caller's transaction: no entity
 * is loaded or managed, so nothing is dirty-checked at commit. Status moves are {@link OrderStates}' conditional
 * UPDATE.
 */
@ApplicationScoped
public class OrderRows {

    /** What a payment needs of the order it pays. */
    public record Payable(Order.Status status, BigDecimal total, String currency) {
    }

    private static final String COLUMNS = """
            o.order_id, o.user_id, o.status, o.total, o.currency, o.created_at, i.product_id, i.quantity, i.unit_price""";

    private final EntityManager em;

    public OrderRows(EntityManager em) {
        this.em = em;
    }

    /** Inserts the order and its lines (line_no from 0) in one statement. */
    public void insert(String orderId, String userId, Order.Status status, BigDecimal total, String currency,
                       String requestId, Instant now, List<Order.Line> lines) {
        StringBuilder sql = new StringBuilder("""
                WITH inserted AS (
                    INSERT INTO orders (order_id, user_id, status, total, currency, request_id, created_at, updated_at)
                    VALUES (:orderId, :userId, :status, :total, :currency, :requestId, :now, :now))
                INSERT INTO order_items (order_id, line_no, product_id, quantity, unit_price) VALUES\s""");
        for (int i = 0; i < lines.size(); i++) {
            sql.append(i == 0 ? "" : ", ").append("(:orderId, ").append(i).append(", :product").append(i)
                    .append(", :quantity").append(i).append(", :price").append(i).append(')');
        }
        var insert = em.createNativeQuery(sql.toString())
                .setParameter("orderId", orderId)
                .setParameter("userId", userId)
                .setParameter("status", status.name())
                .setParameter("total", total)
                .setParameter("currency", currency)
                .setParameter("requestId", requestId)
                .setParameter("now", now);
        for (int i = 0; i < lines.size(); i++) {
            insert.setParameter("product" + i, lines.get(i).productId())
                    .setParameter("quantity" + i, lines.get(i).quantity())
                    .setParameter("price" + i, lines.get(i).unitPrice());
        }
        insert.executeUpdate();
    }

    /** The order if it exists and belongs to the user; another user's order is as absent as an unknown one. */
    @Transactional
    public Optional<Order> findOwned(String orderId, String userId) {
        return orders(typed("SELECT " + COLUMNS + """
                         FROM orders o JOIN order_items i ON i.order_id = o.order_id
                        WHERE o.order_id = :orderId AND o.user_id = :userId
                        ORDER BY i.line_no""")
                .setParameter("orderId", orderId)
                .setParameter("userId", userId)
                .getResultList()).stream().findFirst();
    }

    /** One keyset page of the user's orders, newest first (order ids are time-ordered). */
    @Transactional
    public List<Order> pageOf(String userId, String after, int limit) {
        return orders(typed("SELECT " + COLUMNS + """
                         FROM (SELECT * FROM orders
                                WHERE user_id = :userId AND (CAST(:after AS text) IS NULL OR order_id < :after)
                                ORDER BY order_id DESC LIMIT :limit) o
                         JOIN order_items i ON i.order_id = o.order_id
                        ORDER BY o.order_id DESC, i.line_no""")
                .setParameter("userId", userId)
                .setParameter("after", after, StandardBasicTypes.STRING)
                .setParameter("limit", limit)
                .getResultList());
    }

    /**
     * The user's order locked until the caller's transaction ends (FOR UPDATE), so that no two payments of it check
     * its status at once; empty when the user has no order with this id.
     */
    @Transactional(Transactional.TxType.MANDATORY)
    public Optional<Payable> lockForPayment(String orderId, String userId) {
        List<?> rows = em.createNativeQuery("""
                        SELECT status, total, currency FROM orders
                         WHERE order_id = :orderId AND user_id = :userId FOR UPDATE""")
                .setParameter("orderId", orderId)
                .setParameter("userId", userId)
                .getResultList();
        return rows.stream().map(Object[].class::cast)
                .map(row -> new Payable(Order.Status.valueOf((String) row[0]), (BigDecimal) row[1], (String) row[2]))
                .findFirst();
    }

    /** A query of {@link #COLUMNS}, each read as its Java type. */
    private NativeQuery<?> typed(String sql) {
        return em.createNativeQuery(sql).unwrap(NativeQuery.class)
                .addScalar("order_id", StandardBasicTypes.STRING)
                .addScalar("user_id", StandardBasicTypes.STRING)
                .addScalar("status", StandardBasicTypes.STRING)
                .addScalar("total", StandardBasicTypes.BIG_DECIMAL)
                .addScalar("currency", StandardBasicTypes.STRING)
                .addScalar("created_at", StandardBasicTypes.INSTANT)
                .addScalar("product_id", StandardBasicTypes.STRING)
                .addScalar("quantity", StandardBasicTypes.INTEGER)
                .addScalar("unit_price", StandardBasicTypes.BIG_DECIMAL);
    }

    /** Rows of {@link #COLUMNS}, one per line, ordered by order then line, folded into orders. */
    private static List<Order> orders(List<?> rows) {
        Map<String, Object[]> heads = new LinkedHashMap<>();
        Map<String, List<Order.Line>> lines = new LinkedHashMap<>();
        for (Object row : rows) {
            Object[] columns = (Object[]) row;
            String orderId = (String) columns[0];
            heads.putIfAbsent(orderId, columns);
            lines.computeIfAbsent(orderId, id -> new ArrayList<>()).add(new Order.Line((String) columns[6],
                    (Integer) columns[7], (BigDecimal) columns[8]));
        }
        return heads.values().stream().map(head -> new Order((String) head[0], (String) head[1],
                Order.Status.valueOf((String) head[2]), (BigDecimal) head[3], (String) head[4], (Instant) head[5],
                List.copyOf(lines.get((String) head[0])))).toList();
    }
}
