package dev.onceguard.sandbox;

import io.quarkus.hibernate.orm.panache.PanacheEntityBase;
import jakarta.persistence.Entity;
import jakarta.persistence.EnumType;
import jakarta.persistence.Enumerated;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import org.hibernate.annotations.JdbcTypeCode;
import org.hibernate.type.SqlTypes;

import java.math.BigDecimal;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** A payment as the sandbox provider keeps it. */
@Entity
@Table(name = "sandbox_payments")
public class SandboxPayment extends PanacheEntityBase {

    public enum Status { PENDING, SUCCEEDED, FAILED }

    @Id
    public String id;
    public String idempotencyKey;
    public String requestFingerprint;
    @Enumerated(EnumType.STRING)
    public Status status;
    public BigDecimal amount;
    public String currency;
    public String paymentMethodToken;
    public String orderId;
    /** What the caller sent with the payment, echoed in every webhook event about it. */
    @JdbcTypeCode(SqlTypes.JSON)
    public Map<String, String> metadata;
    public Instant createdAt;
    public Instant updatedAt;

    static Optional<SandboxPayment> byKey(String idempotencyKey) {
        return find("idempotencyKey", idempotencyKey).firstResultOptional();
    }

    static List<SandboxPayment> ofOrder(String orderId, int limit) {
        return find("orderId = ?1 order by createdAt, id", orderId).page(0, limit).list();
    }

    @Override
    public String toString() {
        return "SandboxPayment[" + id + ", order=" + orderId + ", status=" + status + "]";
    }
}
