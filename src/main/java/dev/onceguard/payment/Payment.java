package dev.onceguard.payment;

import io.quarkus.hibernate.orm.panache.PanacheEntityBase;
import jakarta.persistence.Entity;
import jakarta.persistence.EnumType;
import jakarta.persistence.Enumerated;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

import java.math.BigDecimal;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/** One payment attempt of an order at a provider. */
@Entity
@Table(name = "payments")
public class Payment extends PanacheEntityBase {

    public enum Status { CREATED, PENDING, REQUIRES_ACTION, SUCCEEDED, FAILED, CANCELED, UNKNOWN }

    @Id
    public String paymentId;
    public String orderId;
    public String userId;
    @Enumerated(EnumType.STRING)
    public Status status;
    public BigDecimal amount;
    public String currency;
    public String provider;
    public String providerIdempotencyKey;
    public String providerPaymentId;
    public String paymentMethodToken;
    public Long idempotencyRecordId;
    public String failureReason;
    public Instant createdAt;
    public Instant updatedAt;

    public static Optional<Payment> findOwned(String paymentId, String userId) {
        return find("paymentId = ?1 and userId = ?2", paymentId, userId).firstResultOptional();
    }

    public static Optional<Payment> findByProviderPayment(String provider, String providerPaymentId) {
        return find("provider = ?1 and providerPaymentId = ?2", provider, providerPaymentId).firstResultOptional();
    }

    public static Optional<Payment> findByProviderKey(String provider, String providerIdempotencyKey) {
        return find("provider = ?1 and providerIdempotencyKey = ?2", provider, providerIdempotencyKey).firstResultOptional();
    }

    public static List<Payment> ofOrder(String orderId) {
        return list("orderId = ?1 order by createdAt", orderId);
    }

    @Override
    public String toString() {
        return "Payment[" + paymentId + ", order=" + orderId + ", status=" + status + "]";
    }
}
