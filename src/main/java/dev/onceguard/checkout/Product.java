package dev.onceguard.checkout;

import io.quarkus.hibernate.orm.panache.PanacheEntityBase;
import jakarta.persistence.Entity;
import jakarta.persistence.EnumType;
import jakarta.persistence.Enumerated;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

import java.math.BigDecimal;
import java.util.List;

/** A catalog entry. {@code stock} is what is left to sell, or null for unlimited goods. */
@Entity
@Table(name = "products")
public class Product extends PanacheEntityBase {

    public enum Kind { DIGITAL, PHYSICAL }

    @Id
    public String productId;
    public String name;
    @Enumerated(EnumType.STRING)
    public Kind kind;
    public BigDecimal price;
    public String currency;
    public Integer stock;

    public static List<Product> listInCatalogOrder() {
        return list("order by productId");
    }

    /** Inserts the product, or updates every field of the product with its id, stock included. */
    static void upsert(CatalogFile.Entry entry) {
        catalogWrite("""
                insert into Product (productId, name, kind, price, currency, stock)
                values (:productId, :name, :kind, :price, :currency, :stock)
                on conflict (productId) do update set name = excluded.name, kind = excluded.kind,
                    price = excluded.price, currency = excluded.currency, stock = excluded.stock""", entry);
    }

    /** Inserts the product unless one with its id exists, which is left as it is. */
    static void addIfAbsent(CatalogFile.Entry entry) {
        catalogWrite("""
                insert into Product (productId, name, kind, price, currency, stock)
                values (:productId, :name, :kind, :price, :currency, :stock)
                on conflict (productId) do nothing""", entry);
    }

    private static void catalogWrite(String hql, CatalogFile.Entry entry) {
        getSession().createMutationQuery(hql)
                .setParameter("productId", entry.productId())
                .setParameter("name", entry.name())
                .setParameter("kind", entry.kind())
                .setParameter("price", entry.price())
                .setParameter("currency", entry.currency())
                .setParameter("stock", entry.stock())
                .executeUpdate();
    }

    public boolean isLimited() {
        return stock != null;
    }
}
