package dev.onceguard.payment;

import dev.onceguard.payment.provider.PaymentProvider;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Instance;

import java.util.Optional;

/** The enabled provider adapters, by name. */
@ApplicationScoped
public class PaymentProviders {

    private final Instance<PaymentProvider> adapters;
    private final PaymentsConfig config;

    public PaymentProviders(Instance<PaymentProvider> adapters, PaymentsConfig config) {
        this.adapters = adapters;
        this.config = config;
    }

    public Optional<PaymentProvider> named(String name) {
        return adapters.stream().filter(p -> p.enabled() && p.name().equals(name)).findFirst();
    }

    /** The provider new payments go to, if it is enabled here. */
    public Optional<PaymentProvider> forNewPayments() {
        return named(config.provider());
    }
}
