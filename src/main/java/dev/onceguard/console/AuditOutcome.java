package dev.onceguard.console;

import java.util.Locale;

/**
 * How an admin action ended, as written to {@code console_audit.outcome}; declared in the order a bulk action's
 * summary counts its rows in.
 */
public enum AuditOutcome {
    /** The action changed what it was asked to change. */
    DONE("acted"),
    /** Someone (a retry, a job, another operator) had already dealt with the object; nothing changed. */
    ALREADY_RESOLVED("already-handled"),
    /** The action was not allowed on the object in its current state; nothing changed. */
    REFUSED("refused"),
    /** The action ran and failed. */
    FAILED("failed");

    private final String rowLabel;

    AuditOutcome(String rowLabel) {
        this.rowLabel = rowLabel;
    }

    public String label() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    /** How one row of a bulk action that ended so is named: in {@code console_audit_rows.outcome} and its metric. */
    public String rowLabel() {
        return rowLabel;
    }

    /** The badge class of the outcome: colour for the eye, the label beside it for everyone. */
    public String statusClass() {
        return switch (this) {
            case DONE -> "st-ok";
            case REFUSED -> "st-warn";
            case ALREADY_RESOLVED -> "st-neutral";
            case FAILED -> "st-bad";
        };
    }
}
