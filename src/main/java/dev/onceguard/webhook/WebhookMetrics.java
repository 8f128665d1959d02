package dev.onceguard.webhook;

import dev.onceguard.payment.provider.PaymentProvider;
import dev.onceguard.platform.HourlyActivity;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.runtime.Startup;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Instance;

/**
 * {@code onceguard.webhook.deliveries{provider,outcome}}, registered at zero for every provider adapter, and the same
 * counts per hour for the console.
 */
@ApplicationScoped
@Startup
public class WebhookMetrics {

    private final MeterRegistry registry;
    private final HourlyActivity activity;

    public WebhookMetrics(MeterRegistry registry, HourlyActivity activity, Instance<PaymentProvider> adapters) {
        this.registry = registry;
        this.activity = activity;
        adapters.forEach(adapter -> {
            for (DeliveryOutcome outcome : DeliveryOutcome.values()) {
                counter(adapter.name(), outcome);
            }
        });
    }

    public void count(String provider, DeliveryOutcome outcome) {
        counter(provider, outcome).increment();
        activity.record("webhooks." + provider + "." + outcome.label());
    }

    private Counter counter(String provider, DeliveryOutcome outcome) {
        return Counter.builder("onceguard.webhook.deliveries")
                .description("Webhook deliveries by provider and outcome")
                .tag("provider", provider)
                .tag("outcome", outcome.label())
                .register(registry);
    }
}
