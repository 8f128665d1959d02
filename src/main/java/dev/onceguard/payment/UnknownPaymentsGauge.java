package dev.onceguard.payment;

import dev.onceguard.platform.DatabaseGauges;
import io.quarkus.runtime.Startup;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * {@code onceguard_payments_unknown} and {@code onceguard_payments_unknown_oldest_age_seconds}: payment attempts whose
 * provider outcome is UNKNOWN, and how long the oldest has been so (an UNKNOWN attempt only leaves for a final state,
 * so its {@code updated_at} is when it became UNKNOWN); the same two of refunds, {@code onceguard_refunds_unknown…}.
 * Read from the partial indexes on unresolved payments and refunds.
 */
@ApplicationScoped
@Startup
public class UnknownPaymentsGauge {

    private static final String UNKNOWN = """
            SELECT count(*), COALESCE(EXTRACT(EPOCH FROM now() - min(updated_at)), 0)
              FROM payments WHERE status = 'UNKNOWN'""";
    private static final String UNKNOWN_REFUNDS = """
            SELECT count(*), COALESCE(EXTRACT(EPOCH FROM now() - min(updated_at)), 0)
              FROM refunds WHERE status = 'UNKNOWN'""";

    public UnknownPaymentsGauge(DatabaseGauges gauges) {
        gauges.register("onceguard.payments.unknown", "Payment attempts whose provider outcome is UNKNOWN", UNKNOWN, 1);
        gauges.register("onceguard.payments.unknown.oldest.age.seconds",
                "Seconds since the oldest UNKNOWN payment attempt became UNKNOWN, 0 when none", UNKNOWN, 2);
        gauges.register("onceguard.refunds.unknown", "Refunds whose provider outcome is UNKNOWN", UNKNOWN_REFUNDS, 1);
        gauges.register("onceguard.refunds.unknown.oldest.age.seconds",
                "Seconds since the oldest UNKNOWN refund became UNKNOWN, 0 when none", UNKNOWN_REFUNDS, 2);
    }
}
