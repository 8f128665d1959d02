package dev.onceguard.checkout;

import io.quarkus.hibernate.orm.panache.PanacheEntityBase;
import jakarta.persistence.CollectionTable;
import jakarta.persistence.ElementCollection;
import jakarta.persistence.Embeddable;
import jakarta.persistence.Entity;
import jakarta.persistence.EnumType;
import jakarta.persistence.Enumerated;
import jakarta.persistence.FetchType;
import jakarta.persistence.Id;
import jakarta.persistence.JoinColumn;
import jakarta.persistence.OrderColumn;
import jakarta.persistence.Table;

import java.math.BigDecimal;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

@Entity
@Table(name = "orders")
public class Order extends PanacheEntityBase {

    public enum Status { AWAITING_PAYMENT, PAID, FULFILLED, CANCELED }

    @Id
    public String orderId;
    public String userId;
    @Enumerated(EnumType.STRING)
    public Status status;
    public BigDecimal total;
    public String currency;
    public String requestId;
    public Instant createdAt;
    public Instant updatedAt;

    @ElementCollection(fetch = FetchType.EAGER)
    @CollectionTable(name = "order_items", joinColumns = @JoinColumn(name = "order_id"))
    @OrderColumn(name = "line_no")
    public List<Line> items = new ArrayList<>();

    @Embeddable
    public static class Line {
        public String productId;
        public int quantity;
        public BigDecimal unitPrice;

        protected Line() {
        }

        public Line(String productId, int quantity, BigDecimal unitPrice) {
            this.productId = productId;
            this.quantity = quantity;
            this.unitPrice = unitPrice;
        }
    }

    /** The order if it exists and belongs to the user; another user's order is as absent as an unknown one. */
    public static Optional<Order> findOwned(String orderId, String userId) {
        return find("orderId = ?1 and userId = ?2", orderId, userId).firstResultOptional();
    }

    /** One keyset page of the user's orders, newest first (order ids are time-ordered). */
    public static List<Order> pageOf(String userId, String after, int limit) {
        return after == null
                ? find("userId = ?1 order by orderId desc", userId).page(0, limit).list()
                : find("userId = ?1 and orderId < ?2 order by orderId desc", userId, after).page(0, limit).list();
    }
}
