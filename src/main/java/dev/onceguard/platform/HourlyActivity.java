package dev.onceguard.platform;

import io.agroal.api.AgroalDataSource;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.scheduler.Scheduled;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import org.jboss.logging.Logger;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * Counts of webhook delivery outcomes per hour (a rejected signature leaves no other row), kept in
 * {@code activity_hourly} for the console's webhook summary.
 * Counting is in memory (no write on the request path); every replica adds what it counted to the table every
 * {@code onceguard.activity.flush-every}. A crash loses at most that interval's counts, never a result.
 * Rows older than {@link #KEPT_DAYS} days are dropped on the way.
 */
@ApplicationScoped
public class HourlyActivity {

    public static final int KEPT_DAYS = 30;
    private static final Logger LOG = Logger.getLogger(HourlyActivity.class);

    private record Slot(Instant hour, String kind) {
    }

    private final AgroalDataSource dataSource;
    private volatile Map<Slot, LongAdder> pending = new ConcurrentHashMap<>();

    public HourlyActivity(AgroalDataSource dataSource) {
        this.dataSource = dataSource;
    }

    /** One more occurrence of {@code kind} (such as {@code requests.replayed}) in the current hour. */
    public void record(String kind) {
        pending.computeIfAbsent(new Slot(Instant.now().truncatedTo(ChronoUnit.HOURS), kind), slot -> new LongAdder())
                .increment();
    }

    @Scheduled(identity = "activity-flush", every = "${onceguard.activity.flush-every:10s}",
            concurrentExecution = Scheduled.ConcurrentExecution.SKIP)
    public synchronized void flush() {
        Map<Slot, LongAdder> counted = pending;
        pending = new ConcurrentHashMap<>();
        if (counted.isEmpty()) {
            return;
        }
        try (Connection connection = dataSource.getConnection();
             PreparedStatement add = connection.prepareStatement("""
                     INSERT INTO activity_hourly (hour, kind, count) VALUES (?, ?, ?)
                     ON CONFLICT (hour, kind) DO UPDATE SET count = activity_hourly.count + EXCLUDED.count""");
             PreparedStatement dropOld = connection.prepareStatement(
                     "DELETE FROM activity_hourly WHERE hour < now() - make_interval(days => ?)")) {
            for (Map.Entry<Slot, LongAdder> entry : counted.entrySet()) {
                SqlRows.setInstant(add, 1, entry.getKey().hour());
                add.setString(2, entry.getKey().kind());
                add.setLong(3, entry.getValue().sum());
                add.addBatch();
            }
            add.executeBatch();
            dropOld.setInt(1, KEPT_DAYS);
            dropOld.executeUpdate();
        } catch (SQLException e) {
            counted.forEach((slot, count) -> pending.computeIfAbsent(slot, s -> new LongAdder()).add(count.sum()));
            LOG.warnf("hourly activity not saved, kept for the next flush: %s", e.getMessage());
        }
    }

    void saveOnShutdown(@Observes ShutdownEvent event) {
        flush();
    }
}
