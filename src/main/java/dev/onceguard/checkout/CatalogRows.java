package dev.onceguard.checkout;

import dev.onceguard.platform.SqlRows;
import jakarta.enterprise.context.ApplicationScoped;

import java.math.BigDecimal;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/** Every statement on {@code products}, as plain JDBC in the caller's transaction ({@link SqlRows}). */
@ApplicationScoped
public class CatalogRows {

    /** What an order needs of a catalog entry: its price and currency, and whether its stock is limited. */
    public record CatalogPrice(String productId, BigDecimal price, String currency, boolean limited) {
    }

    private static final String UPSERT = """
            INSERT INTO products (product_id, name, kind, price, currency, stock) VALUES (?, ?, ?, ?, ?, ?)
            ON CONFLICT (product_id) DO UPDATE SET name = excluded.name, kind = excluded.kind,
                price = excluded.price, currency = excluded.currency, stock = excluded.stock""";
    private static final String ADD_IF_ABSENT = """
            INSERT INTO products (product_id, name, kind, price, currency, stock) VALUES (?, ?, ?, ?, ?, ?)
            ON CONFLICT (product_id) DO NOTHING""";

    private final SqlRows sql;

    public CatalogRows(SqlRows sql) {
        this.sql = sql;
    }

    /**
     * The catalog entries with these ids, by id; unknown ids are simply absent. One placeholder per id (a statement
     * per count): PostgreSQL plans {@code = ANY(array)} again on every execution, since it cannot tell the array's
     * length in a cached plan, while {@code IN (?, ?)} keeps its cached plan.
     */
    public Map<String, CatalogPrice> prices(List<String> productIds) {
        return sql.list("SELECT product_id, price, currency, stock IS NOT NULL FROM products WHERE product_id IN ("
                                + String.join(", ", Collections.nCopies(productIds.size(), "?")) + ")",
                        row -> new CatalogPrice(row.getString(1), row.getBigDecimal(2), row.getString(3), row.getBoolean(4)),
                        productIds.toArray())
                .stream().collect(Collectors.toMap(CatalogPrice::productId, p -> p));
    }

    /**
     * Takes {@code quantity} units from a limited stock with a conditional update, so that concurrent orders
     * can never take the stock below zero. False when not enough is left.
     */
    public boolean reserve(String productId, int quantity) {
        return sql.update("UPDATE products SET stock = stock - ? WHERE product_id = ? AND stock >= ?",
                quantity, productId, quantity) == 1;
    }

    /** The whole catalog, by product id. */
    public List<Product> inCatalogOrder() {
        return sql.list("SELECT product_id, name, kind, price, currency, stock FROM products ORDER BY product_id",
                row -> new Product(row.getString(1), row.getString(2), Product.Kind.valueOf(row.getString(3)),
                        row.getBigDecimal(4), row.getString(5), row.getObject(6, Integer.class)));
    }

    /** Inserts the product, or updates every field of the product with its id, stock included. */
    void upsert(CatalogFile.Entry entry) {
        write(UPSERT, entry);
    }

    /** Inserts the product unless one with its id exists, which is left as it is. */
    void addIfAbsent(CatalogFile.Entry entry) {
        write(ADD_IF_ABSENT, entry);
    }

    private void write(String statement, CatalogFile.Entry entry) {
        sql.update(statement, entry.productId(), entry.name(), entry.kind().name(), entry.price(), entry.currency(),
                entry.stock());
    }
}
