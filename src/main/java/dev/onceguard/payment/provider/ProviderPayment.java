package dev.onceguard.payment.provider;

/**
 * A payment as the provider reports it.
 *
 * @param customerAction what the client needs to let the customer finish the payment; only with REQUIRES_ACTION
 * @param failureReason  why the provider failed or canceled it, in the provider's words, when it says so
 */
public record ProviderPayment(String providerPaymentId, ProviderStatus status, CustomerAction customerAction,
                              String failureReason) {

    public ProviderPayment(String providerPaymentId, ProviderStatus status) {
        this(providerPaymentId, status, null, null);
    }
}
