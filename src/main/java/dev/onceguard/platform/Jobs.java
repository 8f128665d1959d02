package dev.onceguard.platform;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.StatusCode;
import io.quarkus.narayana.jta.QuarkusTransaction;
import io.quarkus.runtime.Startup;
import jakarta.enterprise.context.ApplicationScoped;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.logging.Logger;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongFunction;
import java.util.function.Supplier;

/**
 * Runs a scheduled job's body and keeps its record: one {@code job_runs} row per run (start, end, outcome, counts,
 * replica), its duration, and the time of its last success for the "job has not succeeded" alert. Each run is a
 * trace of its own (one span), which the work it resumes links to.
 */
@ApplicationScoped
@Startup
public class Jobs {

    public static final String RETENTION_CLEANUP = "retention-cleanup";
    public static final String LEASE_RECOVERY = "lease-recovery";
    public static final String RECONCILIATION = "reconciliation";
    public static final String OUTBOX_RELAY = "outbox-relay";
    public static final String UNPAID_ORDER_EXPIRY = "unpaid-order-expiry";
    public static final Set<String> ALL = Set.of(RETENTION_CLEANUP, LEASE_RECOVERY, RECONCILIATION, OUTBOX_RELAY,
            UNPAID_ORDER_EXPIRY);

    private static final Logger LOG = Logger.getLogger(Jobs.class);

    private final String replica;
    private final MeterRegistry registry;
    private final Map<String, AtomicLong> lastSuccess = new ConcurrentHashMap<>();
    /** Per job, the cause of its failing runs since its last success. */
    private final Map<String, String> lastFailure = new ConcurrentHashMap<>();
    private final SqlRows sql;
    private final TraceContexts traces;
    private final ObjectMapper json;

    public Jobs(@ConfigProperty(name = "onceguard.replica-id") Optional<String> replicaId, MeterRegistry registry,
                SqlRows sql, TraceContexts traces, ObjectMapper json) {
        this.sql = sql;
        this.json = json;
        this.traces = traces;
        this.replica = replicaId.orElseGet(Jobs::hostName);
        this.registry = registry;
        for (String job : ALL) {
            AtomicLong seconds = new AtomicLong();
            lastSuccess.put(job, seconds);
            Gauge.builder("onceguard.job.last.success.timestamp.seconds", seconds, AtomicLong::get)
                    .description("Unix time of the job's last successful run on this replica (0: none yet)")
                    .tag("job_name", job).register(registry);
            timer(job);
        }
    }

    public String replica() {
        return replica;
    }

    /** How a run ended, as {@code job_runs.outcome} keeps it. */
    public enum Outcome { SUCCEEDED, FAILED }

    /** How a run ended: its outcome, its counts (empty when it failed) and the error of a failed run. */
    public record Finished(Outcome outcome, Map<String, Long> counts, String error) {
    }

    /**
     * Runs {@code body} and records the run. A failure is recorded and logged, not rethrown: the scheduler
     * simply runs the job again at its next tick.
     *
     * @param recordEmptyRuns false for a job (the outbox relay) whose idle runs are only counted in metrics
     */
    public Map<String, Long> run(String job, boolean recordEmptyRuns, Supplier<Map<String, Long>> body) {
        return traces.jobRun(job, () -> recorded(job, recordEmptyRuns, false, runId -> body.get())).counts();
    }

    /** Runs {@code body} on an operator's request, as the scheduler would, and records the run even when it was idle. */
    public Finished runNow(String job, Supplier<Map<String, Long>> body) {
        return traces.jobRun(job, () -> recorded(job, true, false, runId -> body.get()));
    }

    /**
     * Like {@link #runNow}, scheduled or on request, for a job whose changes name their run: {@code body} gets the id
     * its {@code job_runs} row will have.
     */
    public Finished runIdentified(String job, LongFunction<Map<String, Long>> body) {
        return traces.jobRun(job, () -> recorded(job, true, true, body));
    }

    private Finished recorded(String job, boolean recordEmptyRuns, boolean identified,
                              LongFunction<Map<String, Long>> body) {
        Instant started = Instant.now();
        Long runId = null;
        try {
            runId = identified ? nextRunId() : null;
            Map<String, Long> counts = body.apply(runId == null ? 0 : runId);
            Instant finished = Instant.now();
            timer(job).record(Duration.between(started, finished));
            lastSuccess.get(job).set(finished.getEpochSecond());
            if (recordEmptyRuns || counts.values().stream().anyMatch(n -> n > 0)) {
                save(runId, job, started, finished, Outcome.SUCCEEDED, counts, null);
            }
            if (lastFailure.remove(job) != null) {
                LOG.infof("job %s succeeded again", job);
            }
            return new Finished(Outcome.SUCCEEDED, counts, null);
        } catch (RuntimeException e) {
            Instant finished = Instant.now();
            timer(job).record(Duration.between(started, finished));
            String error = e.getClass().getSimpleName() + ": " + e.getMessage();
            Span.current().setStatus(StatusCode.ERROR, e.getClass().getSimpleName());
            boolean recorded = recordFailure(runId, job, started, finished, error);
            logFailure(job, e, recorded);
            return new Finished(Outcome.FAILED, Map.of(), error);
        }
    }

    /** The failed run's row, unless the database that failed the run refuses it too (an outage). */
    private boolean recordFailure(Long runId, String job, Instant started, Instant finished, String error) {
        try {
            save(runId, job, started, finished, Outcome.FAILED, Map.of(), error);
            return true;
        } catch (RuntimeException unrecorded) {
            return false;
        }
    }

    /**
     * One line per failed run. The stack trace comes with the first run that fails for a cause and not again while the
     * job keeps failing for that same cause: an outage of the database fails the outbox relay every second, and its
     * stack trace once is enough.
     */
    private void logFailure(String job, RuntimeException e, boolean recorded) {
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        String cause = root.getClass().getName() + ": " + root.getMessage();
        String unrecorded = recorded ? "" : " (run not recorded in job_runs)";
        if (cause.equals(lastFailure.put(job, cause))) {
            LOG.errorf("job %s failed again: %s%s", job, cause, unrecorded);
        } else {
            LOG.errorf(e, "job %s failed: %s%s", job, cause, unrecorded);
        }
    }

    private long nextRunId() {
        return QuarkusTransaction.requiringNew().call(() -> sql.list(
                "SELECT nextval(pg_get_serial_sequence('job_runs', 'id')) AS id", row -> row.getLong("id")).get(0));
    }

    private void save(Long runId, String job, Instant started, Instant finished, Outcome outcome,
                      Map<String, Long> counts, String error) {
        long id = runId == null ? nextRunId() : runId;
        String countsJson = countsJson(counts);
        QuarkusTransaction.requiringNew().run(() -> sql.update("""
                INSERT INTO job_runs (id, job, replica, started_at, finished_at, outcome, counts, error)
                VALUES (?, ?, ?, ?, ?, ?, CAST(? AS jsonb), ?)""",
                id, job, replica, started, finished, outcome.name(), countsJson, error));
    }

    private String countsJson(Map<String, Long> counts) {
        try {
            return json.writeValueAsString(counts);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("job counts are not serializable", e);
        }
    }

    private Timer timer(String job) {
        return Timer.builder("onceguard.job.duration").description("Duration of scheduled job runs")
                .tag("job_name", job).register(registry);
    }

    private static String hostName() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            return "replica-" + ProcessHandle.current().pid();
        }
    }
}
