package dev.onceguard.idempotency;

import io.quarkus.narayana.jta.QuarkusTransaction;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.scheduler.Scheduled;
import io.smallrye.context.api.ManagedExecutorConfig;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import org.eclipse.microprofile.context.ManagedExecutor;
import org.eclipse.microprofile.context.ThreadContext;
import org.jboss.logging.Logger;

import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Which request got which answer, and how often each record was replayed, kept off the request path: a request
 * only appends to memory; every {@code onceguard.idempotency.request-log.flush-every} one transaction writes the
 * batch (log rows and replay counts together), keeping the first and the last
 * {@code onceguard.idempotency.request-log.kept-per-end} rows of each record. A crash loses at most the last
 * interval's rows and counts, never a result: results are written on the request path, with their effects.
 *
 * <p>Under load a batch does not wait for the interval: once {@code onceguard.idempotency.request-log.batch-rows}
 * rows are pending, the request that appended the last of them hands a flush to a worker. Rows that wait a whole
 * second in memory survive a dozen young collections and many are promoted, filling the old generation until a full
 * collection stops the replica for 100–200 ms; written within a fraction of a second, most die young. The scheduler
 * cannot flush more often than once a second (it checks its triggers once a second), hence the count.
 */
@ApplicationScoped
public class RequestLog {

    /** What a request that reached the engine was answered, as the log stores it. */
    public enum Outcome { EXECUTED, REPLAYED, CONFLICT, IN_PROGRESS, REFUSED }

    record Entry(long recordId, String requestId, Instant receivedAt, Outcome outcome, int httpStatus) {
    }

    record Replays(long recordId, int count, Instant lastAt) {
    }

    /** A record whose rows the batch must bound, and how many rows the batch adds to it. */
    record Bounded(long recordId, int rows) {
    }

    private static final Logger LOG = Logger.getLogger(RequestLog.class);
    private static final Set<Outcome> RETRIES = EnumSet.of(Outcome.REPLAYED, Outcome.CONFLICT, Outcome.IN_PROGRESS);

    private final IdempotencyRecords records;
    private final IdempotencyConfig config;
    private final ManagedExecutor workers;
    /** Off where flush-every is: the test profile flushes by itself, so that what a test reads is what it wrote. */
    private final boolean flushesByCount;
    private final ConcurrentLinkedQueue<Entry> pending = new ConcurrentLinkedQueue<>();
    private final AtomicInteger pendingRows = new AtomicInteger();
    private final AtomicBoolean flushHandedOver = new AtomicBoolean();
    /** Set while the database refuses batches: then only the interval retries, so that no request hands over more. */
    private volatile boolean lastFlushFailed;

    /** @param workers Quarkus's worker pool, carrying none of the appending request's contexts over to the flush */
    public RequestLog(IdempotencyRecords records, IdempotencyConfig config,
                      @ManagedExecutorConfig(propagated = {}, cleared = ThreadContext.ALL_REMAINING)
                      ManagedExecutor workers) {
        this.records = records;
        this.config = config;
        this.workers = workers;
        this.flushesByCount = !"off".equals(config.requestLog().flushEvery());
    }

    void append(long recordId, String requestId, Instant receivedAt, Outcome outcome, int httpStatus) {
        pending.add(new Entry(recordId, requestId, receivedAt, outcome, httpStatus));
        if (pendingRows.incrementAndGet() >= config.requestLog().batchRows() && flushesByCount && !lastFlushFailed
                && flushHandedOver.compareAndSet(false, true)) {
            handFlushToAWorker();
        }
    }

    private void handFlushToAWorker() {
        try {
            workers.execute(() -> {
                try {
                    flush();
                } finally {
                    flushHandedOver.set(false);
                }
            });
        } catch (RejectedExecutionException rejected) { // shutting down: the shutdown flush writes them
            flushHandedOver.set(false);
        }
    }

    @Scheduled(identity = "idempotency-request-log", every = "${onceguard.idempotency.request-log.flush-every}",
            concurrentExecution = Scheduled.ConcurrentExecution.SKIP)
    void scheduled() {
        flush();
    }

    /** Writes everything appended so far; on failure the batch stays in memory for the next flush. */
    public synchronized void flush() {
        List<Entry> batch = new ArrayList<>();
        for (Entry entry; (entry = pending.poll()) != null; ) {
            batch.add(entry);
        }
        if (batch.isEmpty()) {
            return;
        }
        pendingRows.addAndGet(-batch.size());
        try {
            QuarkusTransaction.requiringNew().run(() ->
                    records.appendRequestLog(batch, replaysOf(batch), boundedOf(batch),
                            config.requestLog().keptPerEnd()));
            lastFlushFailed = false;
        } catch (RuntimeException e) {
            lastFlushFailed = true;
            pending.addAll(batch);
            pendingRows.addAndGet(batch.size());
            LOG.warnf("request log batch of %d rows not saved, kept for the next flush: %s", batch.size(), e.getMessage());
        }
    }

    /** Per record, in id order (so that two replicas flushing at once lock their records in the same order). */
    private static List<Replays> replaysOf(List<Entry> batch) {
        Map<Long, Replays> byRecord = new TreeMap<>();
        for (Entry entry : batch) {
            if (entry.outcome() == Outcome.REPLAYED) {
                byRecord.merge(entry.recordId(), new Replays(entry.recordId(), 1, entry.receivedAt()),
                        (a, b) -> new Replays(a.recordId(), a.count() + b.count(),
                                a.lastAt().isAfter(b.lastAt()) ? a.lastAt() : b.lastAt()));
            }
        }
        return List.copyOf(byRecord.values());
    }

    /**
     * The records whose rows the batch must bound, in id order: those a retry reached (replayed, conflict, in
     * progress), each with all the rows the batch adds to it. A record's other rows, its executions and its refusal,
     * are a handful at most, so a batch of new records prunes nothing.
     */
    private static List<Bounded> boundedOf(List<Entry> batch) {
        Map<Long, Integer> rows = new HashMap<>();
        Set<Long> retried = new TreeSet<>();
        for (Entry entry : batch) {
            rows.merge(entry.recordId(), 1, Integer::sum);
            if (RETRIES.contains(entry.outcome())) {
                retried.add(entry.recordId());
            }
        }
        return retried.stream().map(id -> new Bounded(id, rows.get(id))).toList();
    }

    void saveOnShutdown(@Observes ShutdownEvent event) {
        flush();
    }
}
