package dev.onceguard.console;

import dev.onceguard.platform.Jobs;
import jakarta.enterprise.context.ApplicationScoped;
import org.eclipse.microprofile.config.Config;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static dev.onceguard.platform.SqlRows.instant;

/**
 * Whether the machinery a page promises is at work: a job switched off on this replica
 * ({@code onceguard.jobs.<job>.every=off}) or whose latest run (on any replica) failed. The overview, the stuck page
 * and the operation page say so instead of promising that the job will finish the work.
 */
@ApplicationScoped
public class JobSwitches {

    /** What each job does for an operation that is waiting on it, in the words of the warnings. */
    private static final Map<String, String> WHAT_WAITS = Map.of(
            Jobs.LEASE_RECOVERY, "operations stuck past their lease stay PROCESSING until a retry with the same key "
                    + "or an admin action",
            Jobs.RECONCILIATION, "UNKNOWN payments are not asked about again until an admin sends them to "
                    + "reconciliation or a webhook settles them",
            Jobs.OUTBOX_RELAY, "paid orders' effects (license, confirmation, loyalty points) are not delivered",
            Jobs.RETENTION_CLEANUP, "expired records, inbox and outbox events are not removed",
            Jobs.UNPAID_ORDER_EXPIRY, "unpaid orders past their time do not expire and keep their stock reserved");

    /** A job that is not at work, and what waits because of it. */
    public record Warning(String job, boolean switchedOff, Instant failedAt, String error, String consequence) {

        public String text() {
            return (switchedOff ? job + " is switched off on this replica (onceguard.jobs." + job + ".every=off)"
                    : job + "'s latest run failed" + (error == null ? "" : " (" + error + ")"))
                    + ": " + consequence + ".";
        }
    }

    /**
     * The latest run of one job and its latest success, on any replica; {@code startedAt} is null when it never ran
     * (or its runs were cleaned up), {@code lastSuccessAt} when none of its runs kept succeeded.
     *
     * @param schedule how often it runs on this replica: {@code every 30s}, {@code off} or its default schedule
     */
    public record LastRun(String job, Instant startedAt, Instant finishedAt, String outcome, String error,
                          Instant lastSuccessAt, String schedule) {

        public boolean switchedOff() {
            return schedule.equals("off");
        }

        public long millis() {
            return Duration.between(startedAt, finishedAt).toMillis();
        }

        public String statusClass() {
            return StatusBadges.jobRun(outcome);
        }
    }

    /**
     * The recovery jobs that are not at work ({@link #recoveryWarnings}: switched off on this replica, or
     * their latest run failed), so that no page promises that one of them will finish an operation.
     */
    public record RecoveryJobs(List<Warning> notAtWork) {

        /** What finishes an operation that is stuck past its external call, in plain words. */
        String whatFinishesAPayment() {
            List<String> finishers = new ArrayList<>();
            if (warning(Jobs.LEASE_RECOVERY).isEmpty()) {
                finishers.add("lease recovery");
            }
            finishers.add("the next retry with the same key");
            if (warning(Jobs.RECONCILIATION).isEmpty()) {
                finishers.add("reconciliation");
            }
            return String.join(", ", finishers) + ", the provider's webhook or an admin's “send to reconciliation” "
                    + "finishes it" + why(notAtWork);
        }

        /** What finishes an operation that never reached an external call. */
        String whatFinishesAStart() {
            Optional<Warning> leaseRecovery = warning(Jobs.LEASE_RECOVERY);
            return leaseRecovery.isEmpty()
                    ? "lease recovery releases it, or the next retry with the same key runs it again"
                    : "the next retry with the same key runs it again, or an admin releases it on the stuck page"
                    + why(List.of(leaseRecovery.get()));
        }

        private Optional<Warning> warning(String job) {
            return notAtWork.stream().filter(w -> w.job().equals(job)).findFirst();
        }

        /** {@code " (lease recovery is switched off here; reconciliation's latest run failed at …)"}, or nothing. */
        private static String why(List<Warning> warnings) {
            List<String> off = warnings.stream().filter(Warning::switchedOff).map(w -> words(w.job())).toList();
            List<String> reasons = new ArrayList<>();
            if (!off.isEmpty()) {
                reasons.add(String.join(" and ", off) + (off.size() == 1 ? " is" : " are") + " switched off here");
            }
            warnings.stream().filter(w -> !w.switchedOff()).forEach(w -> reasons.add(words(w.job())
                    + "'s latest run failed at " + ConsoleFormat.utc(w.failedAt())));
            return reasons.isEmpty() ? "" : " (" + String.join("; ", reasons) + ")";
        }

        private static String words(String job) {
            return job.replace('-', ' ');
        }
    }

    private final ConsoleReads reads;
    private final Config config;

    public JobSwitches(ConsoleReads reads, Config config) {
        this.reads = reads;
        this.config = config;
    }

    /** The latest run and the latest success of each job, on any replica, by name. */
    public List<LastRun> lastRuns() {
        return reads.list("""
                        SELECT j.job, r.started_at, r.finished_at, r.outcome, r.error,
                               success.started_at AS last_success_at
                          FROM unnest(?) AS j(job)
                          LEFT JOIN LATERAL (SELECT started_at, finished_at, outcome, error FROM job_runs
                                              WHERE job = j.job ORDER BY started_at DESC LIMIT 1) r ON true
                          LEFT JOIN LATERAL (SELECT started_at FROM job_runs
                                              WHERE job = j.job AND outcome = 'SUCCEEDED'
                                              ORDER BY started_at DESC LIMIT 1) success ON true
                         ORDER BY j.job""",
                row -> new LastRun(row.getString("job"), instant(row, "started_at"), instant(row, "finished_at"),
                        row.getString("outcome"), row.getString("error"), instant(row, "last_success_at"),
                        schedule(row.getString("job"))),
                (Object) Jobs.ALL.toArray(String[]::new));
    }

    private String schedule(String job) {
        return config.getOptionalValue("onceguard.jobs." + job + ".every", String.class)
                .map(every -> every.equals("off") ? "off" : "every " + every)
                .orElse("on its default schedule");
    }

    /** The jobs of {@code lastRuns} switched off here or whose latest run failed. */
    static List<Warning> warnings(List<LastRun> lastRuns) {
        List<Warning> warnings = new ArrayList<>();
        for (LastRun run : lastRuns) {
            boolean failed = "FAILED".equals(run.outcome());
            if (run.switchedOff() || failed) {
                warnings.add(new Warning(run.job(), run.switchedOff(), failed ? run.startedAt() : null,
                        failed ? run.error() : null, WHAT_WAITS.get(run.job())));
            }
        }
        return List.copyOf(warnings);
    }

    /** The warnings about the jobs that finish stuck operations and unknown payments. */
    public List<Warning> recoveryWarnings() {
        return warnings(lastRuns()).stream()
                .filter(w -> w.job().equals(Jobs.LEASE_RECOVERY) || w.job().equals(Jobs.RECONCILIATION)).toList();
    }
}
