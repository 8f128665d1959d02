package dev.onceguard.payment.refund;

import dev.onceguard.platform.DatabaseGauges;
import io.quarkus.runtime.Startup;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * {@code onceguard_refunds_unknown} and {@code onceguard_refunds_unknown_oldest_age_seconds}: refunds whose provider
 * outcome is UNKNOWN, and how long the oldest has been so (read from the partial index on unresolved refunds).
 */
@ApplicationScoped
@Startup
public class UnknownRefundsGauge {

    private static final String UNKNOWN = """
            SELECT count(*), COALESCE(EXTRACT(EPOCH FROM now() - min(updated_at)), 0)
              FROM refunds WHERE status = 'UNKNOWN'""";

    public UnknownRefundsGauge(DatabaseGauges gauges) {
        gauges.register("onceguard.refunds.unknown", "Refunds whose provider outcome is UNKNOWN", UNKNOWN, 1);
        gauges.register("onceguard.refunds.unknown.oldest.age.seconds",
                "Seconds since the oldest UNKNOWN refund became UNKNOWN, 0 when none", UNKNOWN, 2);
    }
}
