package dev.onceguard.payment;

import dev.onceguard.payment.provider.PaymentProvider;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Instance;

import java.util.Optional;

/** The enabled provider adapters, by name, with their calls measured ({@link ProviderCallMetrics}). */
@ApplicationScoped
public class PaymentProviders {

    private final Instance<PaymentProvider> adapters;
    private final PaymentsConfig config;
    private final ProviderCallMetrics metrics;

    public PaymentProviders(Instance<PaymentProvider> adapters, PaymentsConfig config, ProviderCallMetrics metrics) {
        this.adapters = adapters;
        this.config = config;
        this.metrics = metrics;
    }

    public Optional<PaymentProvider> named(String name) {
        return adapters.stream().filter(p -> p.enabled() && p.name().equals(name)).findFirst().map(metrics::measured);
    }

    /** The provider new payments go to, if it is enabled here. */
    public Optional<PaymentProvider> forNewPayments() {
        return named(config.provider());
    }
}
