package dev.onceguard.console;

import dev.onceguard.checkout.UnpaidOrderExpiry;
import dev.onceguard.platform.Jobs;
import dev.onceguard.maintenance.LeaseRecovery;
import dev.onceguard.maintenance.RetentionCleanup;
import dev.onceguard.outbox.OutboxRelay;
import dev.onceguard.payment.Reconciliation;
import jakarta.enterprise.context.ApplicationScoped;

import java.util.TreeMap;

/**
 * "Run now": one run of a scheduled job through the job's own {@code runNow}, the scheduler's body recorded in
 * {@code job_runs} by {@link Jobs}. It is as safe beside a scheduled run, here or on another replica, as two
 * replicas' runs are: every job claims its rows with a conditional statement or {@code SKIP LOCKED}.
 */
@ApplicationScoped
public class JobLauncher {

    private final RetentionCleanup retentionCleanup;
    private final LeaseRecovery leaseRecovery;
    private final Reconciliation reconciliation;
    private final OutboxRelay outboxRelay;
    private final UnpaidOrderExpiry unpaidOrderExpiry;

    public JobLauncher(RetentionCleanup retentionCleanup, LeaseRecovery leaseRecovery, Reconciliation reconciliation,
                       OutboxRelay outboxRelay, UnpaidOrderExpiry unpaidOrderExpiry) {
        this.retentionCleanup = retentionCleanup;
        this.leaseRecovery = leaseRecovery;
        this.reconciliation = reconciliation;
        this.outboxRelay = outboxRelay;
        this.unpaidOrderExpiry = unpaidOrderExpiry;
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
