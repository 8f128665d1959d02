package dev.onceguard.outbox;

import dev.onceguard.platform.SqlRows;
import dev.onceguard.platform.Timestamps;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.arc.All;
import io.quarkus.narayana.jta.QuarkusTransaction;
import io.quarkus.runtime.Startup;
import jakarta.enterprise.context.ApplicationScoped;

import java.time.Duration;
import java.time.Instant;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.ToDoubleFunction;

/**
 * Outbox backlog gauges, effect counters and idle relay runs, all registered at start-up. The three gauges share one
 * query over the partial and status indexes, run at most once per {@link #BACKLOG_TTL} however often they are read.
 */
@ApplicationScoped
@Startup
public class OutboxMetrics {

    static final Duration BACKLOG_TTL = Duration.ofSeconds(5);

    record Backlog(long pending, double oldestAgeSeconds, long dead, Instant readAt) {
    }

    private final SqlRows sql;
    private final Counter idleRuns;
    private final Map<String, Map<OutboxHandler.Result, Counter>> effects = new HashMap<>();
    private Backlog backlog;

    OutboxMetrics(SqlRows sql, MeterRegistry registry, @All List<OutboxHandler> handlers) {
        this.sql = sql;
        gauge(registry, "onceguard.outbox.pending", "Outbox events waiting for delivery (PENDING)", Backlog::pending);
        gauge(registry, "onceguard.outbox.oldest.age.seconds", "Age of the oldest PENDING outbox event, 0 when none",
                Backlog::oldestAgeSeconds);
        gauge(registry, "onceguard.outbox.dead", "Outbox events dead-lettered after their last attempt",
                Backlog::dead);
        idleRuns = Counter.builder("onceguard.outbox.relay.idle")
                .description("Outbox relay runs that found no due event")
                .register(registry);
        for (OutboxHandler handler : handlers) {
            Map<OutboxHandler.Result, Counter> byResult = new EnumMap<>(OutboxHandler.Result.class);
            byResult.put(OutboxHandler.Result.EXECUTED, effectCounter(registry, handler.effect(), "executed"));
            byResult.put(OutboxHandler.Result.ALREADY_DONE, effectCounter(registry, handler.effect(), "skipped"));
            effects.put(handler.effect(), byResult);
        }
    }

    void idleRun() {
        idleRuns.increment();
    }

    /** Counts an effect that ran; one that was not needed is not an effect. */
    void effect(String effect, OutboxHandler.Result result) {
        Counter counter = effects.get(effect).get(result);
        if (counter != null) {
            counter.increment();
        }
    }

    private synchronized Backlog backlog() {
        Instant now = Timestamps.now();
        if (backlog == null || backlog.readAt().plus(BACKLOG_TTL).isBefore(now)) {
            backlog = readBacklog(now);
        }
        return backlog;
    }

    Backlog readBacklog(Instant now) {
        return QuarkusTransaction.requiringNew().call(() -> sql.list("""
                        SELECT count(*) FILTER (WHERE status = 'PENDING') AS pending,
                               min(created_at) FILTER (WHERE status = 'PENDING') AS oldest,
                               count(*) FILTER (WHERE status = 'DEAD') AS dead
                          FROM outbox_events WHERE status IN ('PENDING', 'DEAD')""",
                row -> {
                    Instant oldest = SqlRows.instant(row, "oldest");
                    double age = oldest == null ? 0 : Math.max(0, Duration.between(oldest, now).toMillis() / 1000.0);
                    return new Backlog(row.getLong("pending"), age, row.getLong("dead"), now);
                }).get(0));
    }

    private void gauge(MeterRegistry registry, String name, String description, ToDoubleFunction<Backlog> value) {
        Gauge.builder(name, this, metrics -> value.applyAsDouble(metrics.backlog()))
                .description(description)
                .strongReference(true)
                .register(registry);
    }

    private static Counter effectCounter(MeterRegistry registry, String effect, String result) {
        return Counter.builder("onceguard.effects")
                .description("Effects of outbox events: executed now, or skipped because an earlier attempt had done them")
                .tag("effect", effect)
                .tag("result", result)
                .register(registry);
    }
}
