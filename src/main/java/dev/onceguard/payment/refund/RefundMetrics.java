package dev.onceguard.payment.refund;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import dev.onceguard.payment.provider.PaymentProvider;
import io.quarkus.runtime.Startup;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Instance;

import java.util.Locale;

/**
 * {@code onceguard_refunds_total{provider,outcome}}: refunds by the state they reached (succeeded, failed, pending,
 * unknown), each move counted once; {@code onceguard_refund_amount{provider,currency}}: the amounts of the refunds
 * that succeeded.
 */
@ApplicationScoped
@Startup
public class RefundMetrics {

    private final MeterRegistry registry;

    /** The counters of every enabled provider are exported at zero from start-up, before its first refund. */
    public RefundMetrics(MeterRegistry registry, Instance<PaymentProvider> providers) {
        this.registry = registry;
        providers.stream().filter(PaymentProvider::enabled).forEach(provider -> {
            for (Refund.Status status : Refund.Status.values()) {
                counter(provider.name(), status);
            }
        });
    }

    private Counter counter(String provider, Refund.Status status) {
        return Counter.builder("onceguard.refunds")
                .description("Refunds by the state they reached")
                .tag("provider", provider).tag("outcome", status.name().toLowerCase(Locale.ROOT))
                .register(registry);
    }

    void moved(Refund refund, Refund.Status to) {
        counter(refund.provider(), to).increment();
        if (to == Refund.Status.SUCCEEDED) {
            DistributionSummary.builder("onceguard.refund.amount")
                    .description("Amounts refunded, in the payment's currency")
                    .tag("provider", refund.provider()).tag("currency", refund.currency())
                    .register(registry).record(refund.amount().doubleValue());
        }
    }
}
