package dev.onceguard.payment.provider;

import java.math.BigDecimal;
import java.time.Instant;

/**
 * A webhook event reduced to the fact it reports: payment {@code providerPaymentId} is now {@code status}, for
 * {@code amount} {@code currency}. {@code status} is null for event types onceguard does not act on. What the
 * event says about onceguard's own side (the provider-side idempotency key it was created with, the
 * {@code payment_id} and {@code order_id} onceguard sent as metadata) matches it to its payment before the provider
 * payment id is stored; each is null when the event does not carry it.
 */
public record ProviderEvent(String eventId, String type, String providerPaymentId, ProviderStatus status,
                            BigDecimal amount, String currency, Instant created, String providerIdempotencyKey,
                            String paymentId, String orderId) {

    /** An event that names its payment by the provider payment id only. */
    public ProviderEvent(String eventId, String type, String providerPaymentId, ProviderStatus status,
                         BigDecimal amount, String currency, Instant created) {
        this(eventId, type, providerPaymentId, status, amount, currency, created, null, null, null);
    }
}
