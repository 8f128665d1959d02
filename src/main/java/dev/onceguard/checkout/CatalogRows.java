package dev.onceguard.checkout;

import dev.onceguard.idempotency.ClaimPrecondition;
import dev.onceguard.idempotency.ClaimWrites;
import dev.onceguard.platform.SqlRows;
import jakarta.enterprise.context.ApplicationScoped;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * Every statement on {@code products}, as plain JDBC in the caller's transaction ({@link SqlRows}) or, for an order,
 * as parts of its record's claim: the check of the prices it was planned with ({@link ClaimPrecondition}) and the
 * writes that take its stock ({@link ClaimWrites}).
 */
@ApplicationScoped
public class CatalogRows {

    /**
     * What an order needs of a catalog entry: its price and currency, whether its stock is limited, and the units one
     * order may hold of it when the catalog sets them (null: the service's setting).
     */
    public record CatalogPrice(String productId, BigDecimal price, String currency, boolean limited,
                               Integer maxQuantityPerOrder) {
    }

    private static final String UPSERT = """
            INSERT INTO products (product_id, name, kind, price, currency, stock, max_quantity_per_order)
            VALUES (?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (product_id) DO UPDATE SET name = excluded.name, kind = excluded.kind,
                price = excluded.price, currency = excluded.currency, stock = excluded.stock,
                max_quantity_per_order = excluded.max_quantity_per_order""";
    private static final String ADD_IF_ABSENT = """
            INSERT INTO products (product_id, name, kind, price, currency, stock, max_quantity_per_order)
            VALUES (?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (product_id) DO NOTHING""";

    /** The constraint that keeps a limited stock from going below zero. */
    public static final String STOCK_NEVER_NEGATIVE = "products_stock_check";

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
        return sql.list("SELECT product_id, price, currency, stock IS NOT NULL, max_quantity_per_order FROM products"
                                + " WHERE product_id IN (" + placeholders(productIds.size()) + ")",
                        row -> new CatalogPrice(row.getString(1), row.getBigDecimal(2), row.getString(3),
                                row.getBoolean(4), row.getObject(5, Integer.class)),
                        productIds.toArray())
                .stream().collect(Collectors.toMap(CatalogPrice::productId, p -> p));
    }

    /**
     * The condition, checked by an order's claim, that these entries are still the catalog's: each product still
     * exists with the same price, currency, limited or unlimited stock and cap per order (one primary-key probe per
     * product).
     */
    public ClaimPrecondition unchanged(Collection<CatalogPrice> entries, Runnable whenOutdated) {
        List<Object> parameters = new ArrayList<>();
        entries.forEach(entry -> parameters.addAll(
                Arrays.asList(entry.productId(), entry.price(), entry.currency(), entry.limited(),
                        entry.maxQuantityPerOrder())));
        return new ClaimPrecondition(String.join("\n AND ", Collections.nCopies(entries.size(), """
                EXISTS (SELECT 1 FROM products WHERE product_id = CAST(? AS text) AND price = CAST(? AS numeric)
                           AND currency = CAST(? AS text) AND (stock IS NOT NULL) = CAST(? AS boolean)
                           AND max_quantity_per_order IS NOT DISTINCT FROM CAST(? AS integer))""")),
                parameters, whenOutdated);
    }

    /**
     * The claim's writes that take the {@code wanted} units (by product id) from limited stocks. The rows are locked
     * in product id order first, so that two orders never wait on each other in opposite orders; a stock taken below
     * zero breaks {@link #STOCK_NEVER_NEGATIVE}, which fails the whole statement, so that concurrent orders can never
     * oversell and an order takes all of its stock or none.
     */
    public ClaimWrites reservation(SortedMap<String, Integer> wanted) {
        List<Object> takes = new ArrayList<>();
        wanted.forEach((productId, quantity) -> takes.addAll(List.of(productId, quantity)));
        String takeRows = String.join(", ",
                Collections.nCopies(wanted.size(), "(CAST(? AS text), CAST(? AS integer))"));
        return ClaimWrites.query("stock_locked", """
                        SELECT p.product_id FROM products p, claim WHERE p.product_id IN (%s)
                         ORDER BY p.product_id FOR UPDATE OF p""".formatted(placeholders(wanted.size())),
                        List.copyOf(wanted.keySet()))
                .and(ClaimWrites.query("stock_taken", """
                        UPDATE products p SET stock = p.stock - w.quantity
                          FROM stock_locked l JOIN (VALUES %s) AS w(product_id, quantity) USING (product_id)
                         WHERE p.product_id = l.product_id""".formatted(takeRows), takes));
    }

    /**
     * Of the {@code wanted} units, the products whose stock is short of them now, by product id; read after a
     * reservation failed, to name what was missing.
     */
    public SortedMap<String, Integer> shortOf(SortedMap<String, Integer> wanted) {
        SortedMap<String, Integer> missing = new TreeMap<>();
        sql.list("SELECT product_id, stock FROM products WHERE product_id IN (" + placeholders(wanted.size()) + ")",
                        row -> Map.entry(row.getString(1), row.getObject(2, Integer.class)), wanted.keySet().toArray())
                .stream()
                .filter(stock -> stock.getValue() != null && stock.getValue() < wanted.get(stock.getKey()))
                .forEach(stock -> missing.put(stock.getKey(), wanted.get(stock.getKey())));
        return missing;
    }

    private static String placeholders(int count) {
        return String.join(", ", Collections.nCopies(count, "?"));
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
                entry.stock(), entry.maxQuantityPerOrder());
    }
}
