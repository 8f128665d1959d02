package dev.onceguard.webhook;

import dev.onceguard.platform.SqlRows;
import dev.onceguard.platform.WriteBehind;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.scheduler.Scheduled;
import io.smallrye.context.api.ManagedExecutorConfig;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.eclipse.microprofile.context.ManagedExecutor;
import org.eclipse.microprofile.context.ThreadContext;

import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * One row per authentic delivery of an inbox event ({@code webhook_deliveries}): when it came and what it was
 * answered, for the console's event page; and each inbox event's {@code delivery_count} and
 * {@code last_delivered_at} for the deliveries after its first. Both are kept off the request path, as the
 * idempotency request log is: a delivery only appends to memory, and every
 * {@code onceguard.webhooks.delivery-log.flush-every} (or as soon as
 * {@code onceguard.webhooks.delivery-log.batch-rows} are pending) one transaction writes the batch. A crash loses at
 * most the last interval's rows and counts, never an event or what it did: those are written on the request path.
 * A batch the database refuses stays in memory for the next flush and never changes a provider's answer.
 */
@ApplicationScoped
public class WebhookDeliveryLog {

    /** One delivery as the log stores it; {@code counted}: a delivery after the event's first, added to its count. */
    record Delivery(String provider, String eventId, Instant at, String outcome, int httpStatus, boolean counted) {
    }

    private record Event(String provider, String eventId) {
    }

    private record Redeliveries(int count, Instant lastAt) {
    }

    private final SqlRows sql;
    /** Off in tests: each delivery is then written before it is answered, so that what a test reads is what it sent. */
    private final boolean batchesByTime;
    private final WriteBehind<Delivery> batches;

    /** @param workers Quarkus's worker pool, carrying none of the delivery's contexts over to the flush */
    public WebhookDeliveryLog(SqlRows sql,
                              @ManagedExecutorConfig(propagated = {}, cleared = ThreadContext.ALL_REMAINING)
                              ManagedExecutor workers,
                              @ConfigProperty(name = "onceguard.webhooks.delivery-log.flush-every") String flushEvery,
                              @ConfigProperty(name = "onceguard.webhooks.delivery-log.batch-rows") int batchRows) {
        this.sql = sql;
        this.batchesByTime = !"off".equals(flushEvery);
        this.batches = new WriteBehind<>("webhook delivery log", workers, batchRows, batchesByTime, this::write);
    }

    /**
     * Logs one delivery, answered {@code outcome} with {@code httpStatus}; {@code counted} when it was not the one that
     * recorded the event, so that the event's delivery count grows by one. {@code decidedAt}, to the microsecond, is
     * when the delivery's outcome was decided: deliveries of one event in the same millisecond keep that order.
     */
    void record(String provider, String eventId, Instant decidedAt, DeliveryOutcome outcome, int httpStatus,
                boolean counted) {
        append(new Delivery(provider, eventId, decidedAt, outcome.label(), httpStatus, counted));
        if (!batchesByTime) {
            flush();
        }
    }

    /** Whether a delivery only appends to memory, written later in a batch. */
    boolean batched() {
        return batchesByTime;
    }

    void append(Delivery delivery) {
        batches.append(delivery);
    }

    /** Writes everything appended so far in one transaction; on failure the batch stays for the next flush. */
    @Scheduled(identity = "webhook-delivery-log", every = "${onceguard.webhooks.delivery-log.flush-every}",
            concurrentExecution = Scheduled.ConcurrentExecution.SKIP)
    void flush() {
        batches.flush();
    }

    /**
     * One statement: the counts first, per event in (provider, event id) order, so that two replicas flushing at once
     * lock the inbox rows in the same order; then the rows. A delivery whose event retention has meanwhile deleted
     * writes nothing. Committed without waiting for the disk, as the request log's batches are: a crash may lose it
     * anyway.
     */
    private void write(List<Delivery> batch) {
        Map<Event, Redeliveries> counts = new TreeMap<>(
                Comparator.comparing(Event::provider).thenComparing(Event::eventId));
        for (Delivery delivery : batch) {
            if (delivery.counted()) {
                counts.merge(new Event(delivery.provider(), delivery.eventId()), new Redeliveries(1, delivery.at()),
                        (a, b) -> new Redeliveries(a.count() + b.count(), a.lastAt().isAfter(b.lastAt()) ? a.lastAt() : b.lastAt()));
            }
        }
        sql.update("""
                        WITH settings AS (SELECT set_config('synchronous_commit', 'off', true) AS synchronous_commit),
                        counted AS (
                            UPDATE webhook_inbox i
                               SET delivery_count = i.delivery_count + c.deliveries,
                                   last_delivered_at = GREATEST(i.last_delivered_at, c.last_at)
                              FROM unnest(CAST(? AS text[]), CAST(? AS text[]), CAST(? AS int[]), CAST(? AS timestamptz[]))
                                   AS c(provider, event_id, deliveries, last_at)
                             WHERE i.provider = c.provider AND i.event_id = c.event_id)
                        INSERT INTO webhook_deliveries (inbox_id, delivered_at, outcome, http_status)
                        SELECT i.id, d.delivered_at, d.outcome, d.http_status
                          FROM settings,
                               unnest(CAST(? AS text[]), CAST(? AS text[]), CAST(? AS timestamptz[]), CAST(? AS text[]),
                                      CAST(? AS int[])) AS d(provider, event_id, delivered_at, outcome, http_status)
                          JOIN webhook_inbox i ON i.provider = d.provider AND i.event_id = d.event_id""",
                counts.keySet().stream().map(Event::provider).toArray(String[]::new),
                counts.keySet().stream().map(Event::eventId).toArray(String[]::new),
                counts.values().stream().map(r -> (long) r.count()).toArray(Long[]::new),
                counts.values().stream().map(r -> r.lastAt().toString()).toArray(String[]::new),
                batch.stream().map(Delivery::provider).toArray(String[]::new),
                batch.stream().map(Delivery::eventId).toArray(String[]::new),
                batch.stream().map(d -> d.at().toString()).toArray(String[]::new),
                batch.stream().map(Delivery::outcome).toArray(String[]::new),
                batch.stream().map(d -> (long) d.httpStatus()).toArray(Long[]::new));
    }

    void saveOnShutdown(@Observes ShutdownEvent event) {
        flush();
    }
}
