package dev.onceguard.payment;

import java.math.BigDecimal;
import java.time.Instant;

/**
 * One payment attempt of an order at a provider, as {@link PaymentRows} read it: a snapshot, never updated in place;
 * every change is a statement on {@code payments}, and whoever needs the new state reads the row again.
 */
public record Payment(String paymentId, String orderId, String userId, Status status, BigDecimal amount,
                      String currency, String provider, String providerIdempotencyKey, String providerPaymentId,
                      String paymentMethodToken, Long idempotencyRecordId, Instant createdAt) {

    public enum Status { CREATED, PENDING, REQUIRES_ACTION, SUCCEEDED, FAILED, CANCELED, UNKNOWN }

    /** Without the payment method token, which no log line may carry. */
    @Override
    public String toString() {
        return "Payment[" + paymentId + ", order=" + orderId + ", status=" + status + "]";
    }
}
