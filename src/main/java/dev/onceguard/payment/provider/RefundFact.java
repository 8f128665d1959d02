package dev.onceguard.payment.provider;

import java.math.BigDecimal;

/**
 * What a refund event reports: provider refund {@code providerRefundId} is now {@code status}, for {@code amount}
 * {@code currency}. {@code refundId} is the {@code refund_id} metadata onceguard sent with the refund (null when the
 * event does not carry it); the event's {@link ProviderEvent#providerPaymentId()} is the refunded payment.
 */
public record RefundFact(String providerRefundId, String refundId, RefundStatus status, BigDecimal amount,
                         String currency) {
}
