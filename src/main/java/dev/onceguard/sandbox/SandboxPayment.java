package dev.onceguard.sandbox;

import java.math.BigDecimal;
import java.time.Instant;
import java.util.Map;

/**
 * A payment as the sandbox provider keeps it (a row of {@code sandbox_payments}, read by {@link SandboxPaymentRows}).
 *
 * @param metadata what the caller sent with the payment, echoed in every webhook event about it
 */
public record SandboxPayment(String id, String idempotencyKey, String requestFingerprint, Status status,
                             BigDecimal amount, String currency, String paymentMethodToken, String orderId,
                             Map<String, String> metadata, Instant createdAt, Instant updatedAt) {

    public enum Status { PENDING, SUCCEEDED, FAILED }

    @Override
    public String toString() {
        return "SandboxPayment[" + id + ", order=" + orderId + ", status=" + status + "]";
    }
}
