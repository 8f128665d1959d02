package dev.onceguard.payment;

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
 * {@code onceguard_payments_unknown} and {@code onceguard_payments_unknown_oldest_age_seconds}: payment attempts whose
 * provider outcome is UNKNOWN, and how long the oldest has been so (an UNKNOWN attempt only leaves for a final state,
 * so its {@code updated_at} is when it became UNKNOWN). Read from the partial index on unresolved payments at most
 * every few seconds however often the gauges are scraped.
 */
@ApplicationScoped
@Startup
public class UnknownPaymentsGauge {

    private static final Duration FRESH_FOR = Duration.ofSeconds(5);

    private final AgroalDataSource dataSource;
    private volatile double[] countAndOldestAge = {0, 0};
    private volatile Instant readAt = Instant.EPOCH;

    public UnknownPaymentsGauge(AgroalDataSource dataSource, MeterRegistry registry) {
        this.dataSource = dataSource;
        Gauge.builder("onceguard.payments.unknown", this, g -> g.read()[0])
                .description("Payment attempts whose provider outcome is UNKNOWN").register(registry);
        Gauge.builder("onceguard.payments.unknown.oldest.age.seconds", this, g -> g.read()[1])
                .description("Seconds since the oldest UNKNOWN payment attempt became UNKNOWN, 0 when none")
                .register(registry);
    }

    private synchronized double[] read() {
        if (Instant.now().isAfter(readAt.plus(FRESH_FOR))) {
            try (Connection connection = dataSource.getConnection();
                 Statement statement = connection.createStatement();
                 ResultSet row = statement.executeQuery("""
                         SELECT count(*), COALESCE(EXTRACT(EPOCH FROM now() - min(updated_at)), 0)
                           FROM payments WHERE status = 'UNKNOWN'""")) {
                row.next();
                countAndOldestAge = new double[] {row.getLong(1), Math.max(0, row.getDouble(2))};
                readAt = Instant.now();
            } catch (SQLException e) {
                return countAndOldestAge;
            }
        }
        return countAndOldestAge;
    }
}
