package dev.onceguard.idempotency;

import dev.onceguard.platform.DatabaseGauges;
import io.quarkus.runtime.Startup;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * {@code onceguard_operations_processing{stale}}: PROCESSING records with a live lease ({@code stale="false"}) and
 * past it ({@code stale="true"}), read from the index of leases (every PROCESSING record that has committed holds one).
 */
@ApplicationScoped
@Startup
class ProcessingOperationsGauge {

    private static final String PROCESSING = """
            SELECT count(*) FILTER (WHERE lease_expires_at > now()),
                   count(*) FILTER (WHERE lease_expires_at <= now())
              FROM idempotency_records WHERE status = 'PROCESSING' AND lease_expires_at IS NOT NULL""";

    ProcessingOperationsGauge(DatabaseGauges gauges) {
        String description = "Idempotent operations in PROCESSING";
        gauges.register("onceguard.operations.processing", description, PROCESSING, 1, "stale", "false");
        gauges.register("onceguard.operations.processing", description, PROCESSING, 2, "stale", "true");
    }
}
