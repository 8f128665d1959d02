package dev.onceguard.checkout;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.persistence.EntityManager;
import org.hibernate.query.NativeQuery;
import org.hibernate.type.StandardBasicTypes;

import java.math.BigDecimal;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Every statement on {@code products}, as native queries in the caller's transaction: no entity is loaded or
 * managed, so nothing is dirty-checked at commit.
 */
@ApplicationScoped
public class CatalogRows {

    /** What an order needs of a catalog entry: its price and currency, and whether its stock is limited. */
    public record CatalogPrice(String productId, BigDecimal price, String currency, boolean limited) {
    }

    private final EntityManager em;

    public CatalogRows(EntityManager em) {
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

    /** The whole catalog, by product id. */
    public List<Product> inCatalogOrder() {
        List<?> rows = em.createNativeQuery(
                        "SELECT product_id, name, kind, price, currency, stock FROM products ORDER BY product_id")
                .getResultList();
        return rows.stream().map(Object[].class::cast)
                .map(row -> new Product((String) row[0], (String) row[1], Product.Kind.valueOf((String) row[2]),
                        (BigDecimal) row[3], (String) row[4], (Integer) row[5]))
                .toList();
    }

    /** Inserts the product, or updates every field of the product with its id, stock included. */
    void upsert(CatalogFile.Entry entry) {
        write("""
                INSERT INTO products (product_id, name, kind, price, currency, stock)
                VALUES (:productId, :name, :kind, :price, :currency, :stock)
                ON CONFLICT (product_id) DO UPDATE SET name = excluded.name, kind = excluded.kind,
                    price = excluded.price, currency = excluded.currency, stock = excluded.stock""", entry);
    }

    /** Inserts the product unless one with its id exists, which is left as it is. */
    void addIfAbsent(CatalogFile.Entry entry) {
        write("""
                INSERT INTO products (product_id, name, kind, price, currency, stock)
                VALUES (:productId, :name, :kind, :price, :currency, :stock)
                ON CONFLICT (product_id) DO NOTHING""", entry);
    }

    private void write(String sql, CatalogFile.Entry entry) {
        em.createNativeQuery(sql)
                .unwrap(NativeQuery.class)
                .setParameter("productId", entry.productId())
                .setParameter("name", entry.name())
                .setParameter("kind", entry.kind().name())
                .setParameter("price", entry.price())
                .setParameter("currency", entry.currency())
                .setParameter("stock", entry.stock(), StandardBasicTypes.INTEGER)
                .executeUpdate();
    }
}
