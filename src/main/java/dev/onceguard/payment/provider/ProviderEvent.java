package dev.onceguard.payment.provider;

import java.math.BigDecimal;
import java.time.Instant;

/**
 * A webhook event reduced to the fact it reports: payment {@code providerPaymentId} is now {@code status}, for
 * {@code amount} {@code currency}. {@code status} is null for event types onceguard does not act on. What the
 * event says about onceguard's own side (the provider-side idempotency key it was created with, the
 * {@code payment_id} and {@code order_id} onceguard sent as metadata) matches it to its payment before the provider
 * payment id is stored; each is null when the event does not carry it. {@code refund} is set for the events about a
 * refund (then {@code status} is null), null for the others.
 */
public record ProviderEvent(String eventId, String type, String providerPaymentId, ProviderStatus status,
                            BigDecimal amount, String currency, Instant created, String providerIdempotencyKey,
                            String paymentId, String orderId, RefundFact refund) {

    /** An event about a payment (no refund). */
    public ProviderEvent(String eventId, String type, String providerPaymentId, ProviderStatus status,
                         BigDecimal amount, String currency, Instant created, String providerIdempotencyKey,
                         String paymentId, String orderId) {
        this(eventId, type, providerPaymentId, status, amount, currency, created, providerIdempotencyKey, paymentId,
                orderId, null);
    }

    /**
     * An event about a refund of payment {@code providerPaymentId}; its amount and currency are the refund's, and it
     * moves no payment ({@code status} is null).
     */
    public static ProviderEvent aboutRefund(String eventId, String type, String providerPaymentId, Instant created,
                                            RefundFact refund) {
        return new ProviderEvent(eventId, type, providerPaymentId, null, refund.amount(), refund.currency(), created,
                null, null, null, refund);
    }

    /** An event that names its payment by the provider payment id only. */
    public ProviderEvent(String eventId, String type, String providerPaymentId, ProviderStatus status,
                         BigDecimal amount, String currency, Instant created) {
        this(eventId, type, providerPaymentId, status, amount, currency, created, null, null, null);
    }
}
