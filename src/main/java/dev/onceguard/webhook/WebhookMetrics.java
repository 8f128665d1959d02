package dev.onceguard.webhook;

import dev.onceguard.payment.provider.PaymentProvider;
import dev.onceguard.platform.HourlyActivity;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.runtime.Startup;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Instance;

import java.util.EnumMap;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.Map;
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

    /** A delivery outcome's counter and its key in the hourly activity, made once per provider. */
    private record Delivered(Counter counter, String activityKey) {
    }

    private final MeterRegistry registry;
    private final HourlyActivity activity;
    /**
     * Every provider adapter's meters, looked up once: registering a meter again on each delivery builds and sorts
     * its tags and runs the registry's filters, a cost a storm of duplicates pays per delivery.
     */
    private final Map<String, Map<DeliveryOutcome, Delivered>> deliveries = new HashMap<>();
    private final Map<String, Map<DeliveryOutcome, Counter>> events = new HashMap<>();

    public WebhookMetrics(MeterRegistry registry, HourlyActivity activity, Instance<PaymentProvider> adapters) {
        this.registry = registry;
        this.activity = activity;
        adapters.forEach(adapter -> {
            Map<DeliveryOutcome, Delivered> delivered = new EnumMap<>(DeliveryOutcome.class);
            for (DeliveryOutcome outcome : DeliveryOutcome.values()) {
                delivered.put(outcome, delivered(adapter.name(), outcome));
            }
            deliveries.put(adapter.name(), delivered);
            Map<DeliveryOutcome, Counter> decided = new EnumMap<>(DeliveryOutcome.class);
            EVENT_OUTCOMES.forEach(outcome -> decided.put(outcome, eventCounter(adapter.name(), outcome)));
            events.put(adapter.name(), decided);
        });
    }

    public void count(String provider, DeliveryOutcome outcome) {
        Map<DeliveryOutcome, Delivered> known = deliveries.get(provider);
        Delivered delivered = known != null ? known.get(outcome) : delivered(provider, outcome);
        delivered.counter().increment();
        activity.record(delivered.activityKey());
    }

    void countEvent(String provider, DeliveryOutcome outcome) {
        Map<DeliveryOutcome, Counter> known = events.get(provider);
        (known != null ? known.get(outcome) : eventCounter(provider, outcome)).increment();
    }

    private Delivered delivered(String provider, DeliveryOutcome outcome) {
        return new Delivered(counter("onceguard.webhook.deliveries", "Webhook deliveries by provider and outcome",
                provider, outcome), "webhooks." + provider + "." + outcome.label());
    }

    private Counter eventCounter(String provider, DeliveryOutcome outcome) {
        return counter("onceguard.webhook.events", "Webhook events by provider and what was decided about them",
                provider, outcome);
    }

    private Counter counter(String name, String description, String provider, DeliveryOutcome outcome) {
        return Counter.builder(name)
                .description(description)
                .tag("provider", provider)
                .tag("outcome", outcome.label())
                .register(registry);
    }
}
