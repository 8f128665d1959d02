package dev.onceguard.payment.provider;

import java.math.BigDecimal;
import java.time.Instant;

/**
 * A webhook event reduced to the fact it reports: payment {@code providerPaymentId} is now {@code status}.
 * {@code status} is null for event types onceguard does not act on.
 */
public record ProviderEvent(String eventId, String type, String providerPaymentId, ProviderStatus status,
                            BigDecimal amount, String currency, Instant created) {
}
