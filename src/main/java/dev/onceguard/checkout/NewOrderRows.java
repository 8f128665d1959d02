package dev.onceguard.checkout;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.persistence.EntityManager;

import java.math.BigDecimal;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The statements of a new order, as native queries in the caller's transaction: no entity is loaded or managed, so
 * nothing is dirty-checked at commit. Orders' other writes (status moves) are native too; see docs/benchmarks.md.
 */
@ApplicationScoped
public class NewOrderRows {

    /** What an order needs of a catalog entry: its price and currency, and whether its stock is limited. */
    public record CatalogPrice(String productId, BigDecimal price, String currency, boolean limited) {
    }

    public record Line(String productId, int quantity, BigDecimal unitPrice) {
    }

    private final EntityManager em;

    public NewOrderRows(EntityManager em) {
        this.em = em;
    }

    /** The catalog entries with these ids, by id; unknown ids are simply absent. */
    public Map<String, CatalogPrice> prices(List<String> productIds) {
        List<?> rows = em.createNativeQuery(
                        "SELECT product_id, price, currency, stock IS NOT NULL FROM products WHERE product_id IN (:ids)")
                .setParameter("ids", productIds)
                .getResultList();
        return rows.stream().map(Object[].class::cast)
                .map(row -> new CatalogPrice((String) row[0], (BigDecimal) row[1], (String) row[2], (Boolean) row[3]))
                .collect(Collectors.toMap(CatalogPrice::productId, p -> p));
    }

    /**
     * Takes {@code quantity} units from a limited stock with a conditional update, so that concurrent orders
     * can never take the stock below zero. False when not enough is left.
     */
    public boolean reserve(String productId, int quantity) {
        return em.createNativeQuery(
                        "UPDATE products SET stock = stock - :quantity WHERE product_id = :id AND stock >= :quantity")
                .setParameter("quantity", quantity)
                .setParameter("id", productId)
                .executeUpdate() == 1;
    }

    /** Inserts the order and its lines (line_no from 0, as the entity's order column) in one statement. */
    public void insert(String orderId, String userId, String status, BigDecimal total, String currency,
                       String requestId, Instant now, List<Line> lines) {
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
                .setParameter("status", status)
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
}
