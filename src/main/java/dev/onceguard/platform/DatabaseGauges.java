package dev.onceguard.platform;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.enterprise.context.ApplicationScoped;
import org.jboss.logging.Logger;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Gauges whose values are columns of one SQL row. The query runs at most once per {@link #FRESH_FOR} however often
 * the gauges are scraped; when the database does not answer, the last values read stay (zeros before the first).
 * Register every series at start-up so dashboards and alerts never meet an absent one.
 */
@ApplicationScoped
public class DatabaseGauges {

    static final Duration FRESH_FOR = Duration.ofSeconds(5);
    private static final Logger LOG = Logger.getLogger(DatabaseGauges.class);

    private record Reading(double[] values, Instant readAt) {
    }

    private final SqlRows rows;
    private final MeterRegistry registry;
    private final Map<String, Reading> readings = new ConcurrentHashMap<>();

    public DatabaseGauges(SqlRows rows, MeterRegistry registry) {
        this.rows = rows;
        this.registry = registry;
    }

    /** A gauge showing column {@code column} (1-based) of the single row {@code sql} returns. */
    public void register(String name, String description, String sql, int column, String... tags) {
        Gauge.builder(name, this, gauges -> gauges.value(sql, column))
                .description(description).tags(tags).strongReference(true).register(registry);
    }

    private double value(String sql, int column) {
        double[] values = readings.compute(sql, (query, last) ->
                last != null && last.readAt().plus(FRESH_FOR).isAfter(Instant.now()) ? last : query(query, last)).values();
        return column <= values.length ? values[column - 1] : 0;
    }

    private Reading query(String sql, Reading last) {
        try {
            return new Reading(rows.list(sql, DatabaseGauges::columns).get(0), Instant.now());
        } catch (IllegalStateException e) {
            LOG.debugf("gauge query failed, keeping the last values: %s", e.getMessage());
            return last != null ? last : new Reading(new double[0], Instant.EPOCH);
        }
    }

    private static double[] columns(ResultSet row) throws SQLException {
        double[] values = new double[row.getMetaData().getColumnCount()];
        for (int i = 0; i < values.length; i++) {
            values[i] = row.getDouble(i + 1);
        }
        return values;
    }
}
