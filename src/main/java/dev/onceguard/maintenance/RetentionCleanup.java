package dev.onceguard.maintenance;

import dev.onceguard.platform.Jobs;
import dev.onceguard.idempotency.IdempotencyConfig;
import dev.onceguard.idempotency.IdempotencyService;
import dev.onceguard.platform.SqlRows;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.narayana.jta.QuarkusTransaction;
import io.quarkus.runtime.Startup;
import io.quarkus.scheduler.Scheduled;
import jakarta.enterprise.context.ApplicationScoped;

import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Deletes what has outlived its retention, in batches of one short transaction each and within a time budget per
 * run. Every batch picks its rows with {@code FOR UPDATE SKIP LOCKED}, so replicas running at the same moment
 * share the work instead of waiting on each other. Unfinished work is never selected: PROCESSING records, records
 * an operation still keeps (the engine decides which: {@link IdempotencyService#expireFinished}), undelivered or dead
 * outbox events, inbox events whose processing failed (or is under
 * way). Inbox events parked as PENDING_MATCH go only after their own, longer retention.
 */
@ApplicationScoped
@Startup
public class RetentionCleanup {

    /**
     * One kind of row's cleanup: deletes at most {@code batch} rows older than {@code cutoff}, returning how many. A
     * table may have several (the inbox: decided events, parked events); its count is their sum.
     */
    record Sweep(String table, Duration retention, BatchDelete delete) {
    }

    @FunctionalInterface
    interface BatchDelete {
        int run(Instant cutoff, int batch);
    }

    private final SqlRows sql;
    private final Jobs jobs;
    private final RetentionConfig config;
    private final List<Sweep> sweeps;
    private final Map<String, Counter> deleted = new LinkedHashMap<>();

    public RetentionCleanup(SqlRows sql, Jobs jobs, RetentionConfig config, IdempotencyService engine,
                            IdempotencyConfig idempotency, MeterRegistry registry) {
        this.sql = sql;
        this.jobs = jobs;
        this.config = config;
        this.sweeps = List.of(
                new Sweep(IdempotencyService.recordsTable(), Duration.ZERO, engine::expireFinished),
                new Sweep("idempotency_conflicts", idempotency.retention(), sqlDelete("""
                        DELETE FROM idempotency_conflicts WHERE id IN (
                            SELECT id FROM idempotency_conflicts WHERE created_at < ?
                             ORDER BY created_at LIMIT ? FOR UPDATE SKIP LOCKED)""")),
                new Sweep("webhook_inbox", config.inbox(), sqlDelete("""
                        DELETE FROM webhook_inbox WHERE id IN (
                            SELECT id FROM webhook_inbox, (SELECT CAST(? AS timestamptz) AS at) cutoff
                             WHERE received_at < cutoff.at AND processed_at < cutoff.at
                               AND status IN ('PROCESSED', 'IGNORED', 'REJECTED')
                             ORDER BY received_at LIMIT ? FOR UPDATE OF webhook_inbox SKIP LOCKED)""")),
                new Sweep("webhook_inbox", config.inboxPendingMatch(), sqlDelete("""
                        DELETE FROM webhook_inbox WHERE id IN (
                            SELECT id FROM webhook_inbox WHERE status = 'PENDING_MATCH' AND received_at < ?
                             ORDER BY received_at LIMIT ? FOR UPDATE SKIP LOCKED)""")),
                new Sweep("outbox_events", config.outbox(), sqlDelete("""
                        DELETE FROM outbox_events WHERE id IN (
                            SELECT id FROM outbox_events WHERE status = 'DONE' AND processed_at < ?
                             ORDER BY processed_at LIMIT ? FOR UPDATE SKIP LOCKED)""")),
                new Sweep("job_runs", config.jobRuns(), sqlDelete("""
                        DELETE FROM job_runs WHERE id IN (
                            SELECT id FROM job_runs WHERE started_at < ?
                             ORDER BY started_at LIMIT ? FOR UPDATE SKIP LOCKED)""")));
        for (Sweep sweep : sweeps) {
            deleted.computeIfAbsent(sweep.table(), table -> Counter.builder("onceguard.retention.deleted")
                    .description("Rows deleted by retention cleanup").tag("table", table).register(registry));
        }
    }

    /** A sweep of one DELETE, its first parameter the cutoff and its second the batch, in a transaction of its own. */
    private BatchDelete sqlDelete(String delete) {
        return (cutoff, batch) -> QuarkusTransaction.requiringNew().call(() -> sql.update(delete, cutoff, batch));
    }

    @Scheduled(identity = Jobs.RETENTION_CLEANUP, every = "${onceguard.jobs.retention-cleanup.every}",
            concurrentExecution = Scheduled.ConcurrentExecution.SKIP)
    void scheduled() {
        runNow();
    }

    /** One run on an operator's request (the console's "run now"), recorded like a scheduled run. */
    public Jobs.Finished runNow() {
        return jobs.runNow(Jobs.RETENTION_CLEANUP, this::run);
    }

    /** One cleanup run: rows deleted per table. */
    public Map<String, Long> run() {
        Instant now = Instant.now();
        Instant deadline = now.plus(config.timeBudget());
        Map<String, Long> counts = new LinkedHashMap<>();
        for (Sweep sweep : sweeps) {
            Instant cutoff = now.minus(sweep.retention());
            long total = 0;
            int batch;
            do {
                batch = sweep.delete().run(cutoff, config.batchSize());
                total += batch;
                deleted.get(sweep.table()).increment(batch);
            } while (batch == config.batchSize() && Instant.now().isBefore(deadline));
            counts.merge(sweep.table(), total, Long::sum);
        }
        return counts;
    }
}
