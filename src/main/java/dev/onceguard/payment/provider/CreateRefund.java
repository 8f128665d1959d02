package dev.onceguard.payment.provider;

import java.math.BigDecimal;

/**
 * One refund to make at the provider, of (part of) payment {@code providerPaymentId}, with the key that makes the call
 * safe to repeat. {@code refundId} and {@code paymentId} are onceguard's own ids, sent as metadata so that the
 * provider's refund events and its refund list name the refund they are about.
 */
public record CreateRefund(String idempotencyKey, String providerPaymentId, BigDecimal amount, String currency,
                           String refundId, String paymentId) {
}
