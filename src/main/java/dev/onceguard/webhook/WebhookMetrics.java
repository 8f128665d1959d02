package dev.onceguard.webhook;

import dev.onceguard.payment.provider.PaymentProvider;
import dev.onceguard.platform.HourlyActivity;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.runtime.Startup;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Instance;

import java.util.EnumSet;
import java.util.Set;

/**
 * {@code onceguard.webhook.deliveries{provider,outcome}} counts every delivery by its answer;
 * {@code onceguard.webhook.events{provider,outcome}} counts what became of each event each time its inbox status
 * is decided (processed, ignored, rejected for a mismatch, pending a match). Both are registered at zero for every
 * provider adapter; deliveries are also counted per hour for the console.
 */
@ApplicationScoped
@Startup
public class WebhookMetrics {

    private static final Set<DeliveryOutcome> EVENT_OUTCOMES = EnumSet.of(DeliveryOutcome.PROCESSED,
            DeliveryOutcome.IGNORED, DeliveryOutcome.REJECTED, DeliveryOutcome.PENDING_MATCH);

    private final MeterRegistry registry;
    private final HourlyActivity activity;

    public WebhookMetrics(MeterRegistry registry, HourlyActivity activity, Instance<PaymentProvider> adapters) {
        this.registry = registry;
        this.activity = activity;
        adapters.forEach(adapter -> {
            for (DeliveryOutcome outcome : DeliveryOutcome.values()) {
                counter(adapter.name(), outcome);
            }
            EVENT_OUTCOMES.forEach(outcome -> eventCounter(adapter.name(), outcome));
        });
    }

    public void count(String provider, DeliveryOutcome outcome) {
        counter(provider, outcome).increment();
        activity.record("webhooks." + provider + "." + outcome.label());
    }

    void countEvent(String provider, DeliveryOutcome outcome) {
        eventCounter(provider, outcome).increment();
    }

    private Counter counter(String provider, DeliveryOutcome outcome) {
        return Counter.builder("onceguard.webhook.deliveries")
                .description("Webhook deliveries by provider and outcome")
                .tag("provider", provider)
                .tag("outcome", outcome.label())
                .register(registry);
    }

    private Counter eventCounter(String provider, DeliveryOutcome outcome) {
        return Counter.builder("onceguard.webhook.events")
                .description("Webhook events by provider and what was decided about them")
                .tag("provider", provider)
                .tag("outcome", outcome.label())
                .register(registry);
    }
}
