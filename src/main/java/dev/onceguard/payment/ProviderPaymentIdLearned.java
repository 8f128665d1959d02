package dev.onceguard.payment;

/**
 * A payment has just stored the id its provider gave it (from the provider's answer, reconciliation or a webhook
 * matched by metadata). Fired synchronously inside the transaction that stored it.
 */
public record ProviderPaymentIdLearned(String paymentId, String provider, String providerPaymentId) {
}
