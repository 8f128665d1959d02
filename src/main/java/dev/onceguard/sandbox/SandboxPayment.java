package dev.onceguard.sandbox;

import java.math.BigDecimal;
import java.time.Instant;
import java.util.Map;

/** A payment as the sandbox provider keeps it (a row of {@code sandbox_payments}, read by {@link SandboxPaymentRows}). */
public final class SandboxPayment {

    public enum Status { PENDING, SUCCEEDED, FAILED }

    public final String id;
    public final String idempotencyKey;
    public final String requestFingerprint;
    public final Status status;
    public final BigDecimal amount;
    public final String currency;
    public final String paymentMethodToken;
    public final String orderId;
    /** What the caller sent with the payment, echoed in every webhook event about it. */
    public final Map<String, String> metadata;
    public final Instant createdAt;
    public final Instant updatedAt;

    SandboxPayment(String id, String idempotencyKey, String requestFingerprint, Status status, BigDecimal amount,
                   String currency, String paymentMethodToken, String orderId, Map<String, String> metadata,
                   Instant createdAt, Instant updatedAt) {
        this.id = id;
        this.idempotencyKey = idempotencyKey;
        this.requestFingerprint = requestFingerprint;
        this.status = status;
        this.amount = amount;
        this.currency = currency;
        this.paymentMethodToken = paymentMethodToken;
        this.orderId = orderId;
        this.metadata = metadata;
        this.createdAt = createdAt;
        this.updatedAt = updatedAt;
    }

    @Override
    public String toString() {
        return "SandboxPayment[" + id + ", order=" + orderId + ", status=" + status + "]";
    }
}
