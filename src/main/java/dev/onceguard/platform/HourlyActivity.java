package dev.onceguard.platform;

import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.scheduler.Scheduled;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import org.jboss.logging.Logger;

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

    private final SqlRows rows;
    private volatile Map<Slot, LongAdder> pending = new ConcurrentHashMap<>();

    public HourlyActivity(SqlRows rows) {
        this.rows = rows;
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
        try {
            rows.batch("""
                    INSERT INTO activity_hourly (hour, kind, count) VALUES (?, ?, ?)
                    ON CONFLICT (hour, kind) DO UPDATE SET count = activity_hourly.count + EXCLUDED.count""",
                    counted.entrySet().stream().map(entry -> new Object[] {
                            entry.getKey().hour(), entry.getKey().kind(), entry.getValue().sum()}).toList());
            rows.update("DELETE FROM activity_hourly WHERE hour < now() - make_interval(days => ?)", KEPT_DAYS);
        } catch (IllegalStateException e) {
            counted.forEach((slot, count) -> pending.computeIfAbsent(slot, s -> new LongAdder()).add(count.sum()));
            LOG.warnf("hourly activity not saved, kept for the next flush: %s", e.getMessage());
        }
    }

    void saveOnShutdown(@Observes ShutdownEvent event) {
        flush();
    }
}
