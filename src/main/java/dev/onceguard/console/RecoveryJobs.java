package dev.onceguard.console;

import java.util.ArrayList;
import java.util.List;

/**
 * Which recovery jobs run on this replica ({@code onceguard.jobs.*.every} not {@code off}), so that no page promises
 * a job that is switched off.
 */
public record RecoveryJobs(boolean leaseRecovery, boolean reconciliation) {

    /** What finishes an operation that is stuck past its external call, in plain words. */
    String whatFinishesAPayment() {
        List<String> finishers = new ArrayList<>();
        if (leaseRecovery) {
            finishers.add("lease recovery");
        }
        finishers.add("the next retry with the same key");
        if (reconciliation) {
            finishers.add("reconciliation");
        }
        return String.join(", ", finishers) + ", the provider's webhook or an admin's “send to reconciliation” "
                + "finishes it" + switchedOff();
    }

    /** What finishes an operation that never reached an external call. */
    String whatFinishesAStart() {
        return leaseRecovery ? "lease recovery releases it, or the next retry with the same key runs it again"
                : "the next retry with the same key runs it again, or an admin releases it on the stuck page"
                + switchedOff();
    }

    private String switchedOff() {
        return !leaseRecovery && !reconciliation ? " (lease recovery and reconciliation are switched off here)"
                : !leaseRecovery ? " (lease recovery is switched off here)"
                : !reconciliation ? " (reconciliation is switched off here)" : "";
    }
}
