package dev.onceguard.payment.provider;

/** A payment as the provider reports it. */
public record ProviderPayment(String providerPaymentId, ProviderStatus status) {
}
