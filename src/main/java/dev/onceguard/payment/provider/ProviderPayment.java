package dev.onceguard.payment.provider;

/**
 * A payment as the provider reports it.
 *
 * @param customerAction what the client needs to let the customer finish the payment; only with REQUIRES_ACTION
 */
public record ProviderPayment(String providerPaymentId, ProviderStatus status, CustomerAction customerAction) {

    public ProviderPayment(String providerPaymentId, ProviderStatus status) {
        this(providerPaymentId, status, null);
    }
}
