package dev.onceguard.idempotency;

import dev.onceguard.platform.RequestIds;
import dev.onceguard.platform.WriteBehind;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.scheduler.Scheduled;
import io.smallrye.context.api.ManagedExecutorConfig;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import org.eclipse.microprofile.context.ManagedExecutor;
import org.eclipse.microprofile.context.ThreadContext;

import java.time.Instant;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

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
    enum Outcome { EXECUTED, REPLAYED, CONFLICT, IN_PROGRESS, REFUSED }

    record Entry(long recordId, String requestId, String clientRequestId, Instant receivedAt, Outcome outcome,
                 int httpStatus) {
    }

    record Replays(long recordId, int count, Instant lastAt) {
    }

    /** A record whose rows the batch must bound, and how many rows the batch adds to it. */
    record Bounded(long recordId, int rows) {
    }

    private static final Set<Outcome> RETRIES = EnumSet.of(Outcome.REPLAYED, Outcome.CONFLICT, Outcome.IN_PROGRESS);

    private final WriteBehind<Entry> batches;

    /** @param workers Quarkus's worker pool, carrying none of the appending request's contexts over to the flush */
    public RequestLog(RequestLogWrites rows, IdempotencyConfig config,
                      @ManagedExecutorConfig(propagated = {}, cleared = ThreadContext.ALL_REMAINING)
                      ManagedExecutor workers) {
        // off where flush-every is: the test profile flushes by itself, so that what a test reads is what it wrote
        this.batches = new WriteBehind<>("request log", workers, config.requestLog().batchRows(),
                !"off".equals(config.requestLog().flushEvery()),
                batch -> rows.append(batch, replaysOf(batch), boundedOf(batch),
                        config.requestLog().keptPerEnd()));
    }

    void append(long recordId, RequestIds requestIds, Instant receivedAt, Outcome outcome, int httpStatus) {
        batches.append(new Entry(recordId, requestIds.id(), requestIds.clientId(), receivedAt, outcome, httpStatus));
    }

    /** Writes everything appended so far; on failure the batch stays in memory for the next flush. */
    @Scheduled(identity = "idempotency-request-log", every = "${onceguard.idempotency.request-log.flush-every}",
            concurrentExecution = Scheduled.ConcurrentExecution.SKIP)
    public void flush() {
        batches.flush();
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
