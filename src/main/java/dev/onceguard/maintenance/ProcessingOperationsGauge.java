package dev.onceguard.maintenance;

import io.agroal.api.AgroalDataSource;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.runtime.Startup;
import jakarta.enterprise.context.ApplicationScoped;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;

/**
 * {@code onceguard_operations_processing{stale}}: PROCESSING records with a live lease ({@code stale="false"}) and
 * past it ({@code stale="true"}), read from the partial index on PROCESSING records at most every few seconds
 * however often the gauge is scraped.
 */
@ApplicationScoped
@Startup
public class ProcessingOperationsGauge {

    private static final Duration FRESH_FOR = Duration.ofSeconds(5);

    private final AgroalDataSource dataSource;
    private volatile long[] liveAndStale = {0, 0};
    private volatile Instant readAt = Instant.EPOCH;

    public ProcessingOperationsGauge(AgroalDataSource dataSource, MeterRegistry registry) {
        this.dataSource = dataSource;
        Gauge.builder("onceguard.operations.processing", this, g -> g.counts()[0])
                .description("Idempotent operations in PROCESSING").tag("stale", "false").register(registry);
        Gauge.builder("onceguard.operations.processing", this, g -> g.counts()[1])
                .description("Idempotent operations in PROCESSING").tag("stale", "true").register(registry);
    }

    private synchronized long[] counts() {
        if (Instant.now().isAfter(readAt.plus(FRESH_FOR))) {
            try (Connection connection = dataSource.getConnection();
                 Statement statement = connection.createStatement();
                 ResultSet row = statement.executeQuery("""
                         SELECT count(*) FILTER (WHERE lease_expires_at > now()),
                                count(*) FILTER (WHERE lease_expires_at <= now())
                           FROM idempotency_records WHERE status = 'PROCESSING'""")) {
                row.next();
                liveAndStale = new long[] {row.getLong(1), row.getLong(2)};
                readAt = Instant.now();
            } catch (SQLException e) {
                return liveAndStale;
            }
        }
        return liveAndStale;
    }
}
