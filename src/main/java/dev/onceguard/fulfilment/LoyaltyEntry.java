package dev.onceguard.fulfilment;

import io.quarkus.hibernate.orm.panache.PanacheEntityBase;
import jakarta.persistence.Entity;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

import java.time.Instant;

/** One line of the loyalty points ledger; at most one per (order, reason). */
@Entity
@Table(name = "loyalty_ledger")
public class LoyaltyEntry extends PanacheEntityBase {

    @Id
    @GeneratedValue(strategy = GenerationType.IDENTITY)
    public Long id;
    public String userId;
    public String orderId;
    public String reason;
    public long points;
    public Instant createdAt;

    public static long pointsOf(String orderId) {
        return getEntityManager()
                .createQuery("select coalesce(sum(e.points), 0) from LoyaltyEntry e where e.orderId = :orderId", Long.class)
                .setParameter("orderId", orderId)
                .getSingleResult();
    }
}
