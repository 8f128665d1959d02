package dev.onceguard.console;

import dev.onceguard.checkout.UnpaidOrderExpiry;
import dev.onceguard.maintenance.LeaseRecovery;
import dev.onceguard.maintenance.RetentionCleanup;
import dev.onceguard.outbox.OutboxRelay;
import dev.onceguard.payment.Reconciliation;
import dev.onceguard.platform.Jobs;
import dev.onceguard.platform.KeysetQuery;
import jakarta.enterprise.context.ApplicationScoped;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.TreeMap;

import static dev.onceguard.platform.SqlRows.instant;

/**
 * Runs of the scheduled jobs ({@code job_runs}, every replica's), newest first, and "run now": one run of a
 * scheduled job through the job's own {@code runNow}, the scheduler's body recorded in {@code job_runs} by
 * {@link Jobs}. It is as safe beside a scheduled run, here or on another replica, as two replicas' runs are: every
 * job claims its rows with a conditional statement or {@code SKIP LOCKED}.
 */
@ApplicationScoped
public class JobHistory {

    static final List<String> JOBS = Jobs.ALL.stream().sorted().toList();

    public record Run(long id, String job, String replica, Instant startedAt, Instant finishedAt, String outcome,
                      String counts, String error) {

        public String duration() {
            long millis = Duration.between(startedAt, finishedAt).toMillis();
            return millis < 1000 ? millis + " ms" : String.format("%.1f s", millis / 1000.0);
        }

        public String statusClass() {
            return StatusBadges.jobRun(outcome);
        }
    }

    static final List<CsvExport.Column<Run>> CSV = List.of(
            new CsvExport.Column<>("run_id", Run::id),
            new CsvExport.Column<>("job", Run::job),
            new CsvExport.Column<>("replica", Run::replica),
            new CsvExport.Column<>("started_at", Run::startedAt),
            new CsvExport.Column<>("finished_at", Run::finishedAt),
            new CsvExport.Column<>("outcome", Run::outcome),
            new CsvExport.Column<>("counts", Run::counts),
            new CsvExport.Column<>("error", Run::error));

    private final ConsoleReads reads;
    private final RetentionCleanup retentionCleanup;
    private final LeaseRecovery leaseRecovery;
    private final Reconciliation reconciliation;
    private final OutboxRelay outboxRelay;
    private final UnpaidOrderExpiry unpaidOrderExpiry;

    public JobHistory(ConsoleReads reads, RetentionCleanup retentionCleanup, LeaseRecovery leaseRecovery,
                      Reconciliation reconciliation, OutboxRelay outboxRelay, UnpaidOrderExpiry unpaidOrderExpiry) {
        this.reads = reads;
        this.retentionCleanup = retentionCleanup;
        this.leaseRecovery = leaseRecovery;
        this.reconciliation = reconciliation;
        this.outboxRelay = outboxRelay;
        this.unpaidOrderExpiry = unpaidOrderExpiry;
    }

    static String job(String name) {
        if (name == null || name.isEmpty()) {
            return null;
        }
        if (!Jobs.ALL.contains(name)) {
            throw ConsoleRequestRejected.badRequest("There is no job of that name; the jobs are " + String.join(", ", JOBS) + ".");
        }
        return name;
    }

    KeysetPage<Run> list(String job, Optional<Cursor> after) {
        KeysetQuery query = KeysetQuery.newestFirst("""
                SELECT id, job, replica, started_at, finished_at, outcome, error,
                       (SELECT string_agg(key || ' ' || value, ', ' ORDER BY key) FROM jsonb_each_text(counts)) AS counts
                  FROM job_runs""", "started_at", "id", KeysetPage.SIZE)
                .whereGiven("job = ?", job);
        after.ifPresent(cursor -> query.after(cursor.at(), cursor.number()));
        return reads.page(query, row -> new Run(row.getLong("id"), row.getString("job"),
                row.getString("replica"), instant(row, "started_at"),
                instant(row, "finished_at"), row.getString("outcome"), row.getString("counts"),
                row.getString("error")), row -> new Cursor(row.startedAt(), row.id()));
    }

    ActionResult runNow(String job) {
        Jobs.Finished run = switch (job) {
            case Jobs.RETENTION_CLEANUP -> retentionCleanup.runNow();
            case Jobs.LEASE_RECOVERY -> leaseRecovery.runNow();
            case Jobs.RECONCILIATION -> reconciliation.runNow();
            case Jobs.OUTBOX_RELAY -> outboxRelay.runNow();
            case Jobs.UNPAID_ORDER_EXPIRY -> unpaidOrderExpiry.runNow();
            default -> throw new IllegalArgumentException("no job " + job);
        };
        if (run.outcome() == Jobs.Outcome.SUCCEEDED) {
            return new ActionResult(AuditOutcome.DONE, AdminNotice.JOB_SUCCEEDED, "succeeded: " + new TreeMap<>(run.counts()));
        }
        return new ActionResult(AuditOutcome.FAILED, AdminNotice.JOB_FAILED, run.error());
    }
}
