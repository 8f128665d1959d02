package dev.onceguard.payment.refund;

import java.math.BigDecimal;
import java.time.Instant;

/**
 * One refund of a payment, as {@link RefundRows} read it: a snapshot; every change is a statement on {@code refunds},
 * and whoever needs the new state reads the row again.
 *
 * @param requestedBy who asked: the {@code sub} of a back-office token, or {@code console:<login>} for an admin
 */
public record Refund(String refundId, String paymentId, String orderId, String requestedBy, Status status,
                     BigDecimal amount, String currency, Reason reason, String note, String provider,
                     String providerIdempotencyKey, String providerRefundId, Long idempotencyRecordId,
                     Instant createdAt) {

    public enum Status { PENDING, SUCCEEDED, FAILED, UNKNOWN }

    public enum Reason { DUPLICATE, REQUESTED_BY_CUSTOMER, FRAUDULENT, OTHER }
}
