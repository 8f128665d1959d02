package dev.onceguard.console;

import dev.onceguard.platform.Jobs;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The recovery jobs that are not at work ({@link JobSwitches#recoveryWarnings}: switched off on this replica, or
 * their latest run failed), so that no page promises that one of them will finish an operation.
 */
public record RecoveryJobs(List<JobSwitches.Warning> notAtWork) {

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
        Optional<JobSwitches.Warning> leaseRecovery = warning(Jobs.LEASE_RECOVERY);
        return leaseRecovery.isEmpty() ? "lease recovery releases it, or the next retry with the same key runs it again"
                : "the next retry with the same key runs it again, or an admin releases it on the stuck page"
                + why(List.of(leaseRecovery.get()));
    }

    private Optional<JobSwitches.Warning> warning(String job) {
        return notAtWork.stream().filter(w -> w.job().equals(job)).findFirst();
    }

    /** {@code " (lease recovery is switched off here; reconciliation's latest run failed at …)"}, or nothing. */
    private static String why(List<JobSwitches.Warning> warnings) {
        List<String> off = warnings.stream().filter(JobSwitches.Warning::switchedOff).map(w -> words(w.job())).toList();
        List<String> reasons = new ArrayList<>();
        if (!off.isEmpty()) {
            reasons.add(String.join(" and ", off) + (off.size() == 1 ? " is" : " are") + " switched off here");
        }
        warnings.stream().filter(w -> !w.switchedOff())
                .forEach(w -> reasons.add(words(w.job()) + "'s latest run failed at " + ConsoleFormat.utc(w.failedAt())));
        return reasons.isEmpty() ? "" : " (" + String.join("; ", reasons) + ")";
    }

    private static String words(String job) {
        return job.replace('-', ' ');
    }
}
