package dev.onceguard.payment.provider;

/** A refund as the provider reports it; {@code providerRefundId} is null when the provider refused before making one. */
public record ProviderRefund(String providerRefundId, RefundStatus status) {
}
