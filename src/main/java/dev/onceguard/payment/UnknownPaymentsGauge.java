package dev.onceguard.payment;

import dev.onceguard.platform.DatabaseGauges;
import io.quarkus.runtime.Startup;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * {@code onceguard_payments_unknown} and {@code onceguard_payments_unknown_oldest_age_seconds}: payment attempts whose
 * provider outcome is UNKNOWN, and how long the oldest has been so (an UNKNOWN attempt only leaves for a final state,
 * so its {@code updated_at} is when it became UNKNOWN). Read from the partial index on unresolved payments.
 */
@ApplicationScoped
@Startup
public class UnknownPaymentsGauge {

    private static final String UNKNOWN = """
            SELECT count(*), COALESCE(EXTRACT(EPOCH FROM now() - min(updated_at)), 0)
              FROM payments WHERE status = 'UNKNOWN'""";

    public UnknownPaymentsGauge(DatabaseGauges gauges) {
        gauges.register("onceguard.payments.unknown", "Payment attempts whose provider outcome is UNKNOWN", UNKNOWN, 1);
        gauges.register("onceguard.payments.unknown.oldest.age.seconds",
                "Seconds since the oldest UNKNOWN payment attempt became UNKNOWN, 0 when none", UNKNOWN, 2);
    }
}
