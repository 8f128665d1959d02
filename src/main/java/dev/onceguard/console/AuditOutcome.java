package dev.onceguard.console;

import java.util.Locale;

/** How an admin action ended, as written to {@code console_audit.outcome}. */
public enum AuditOutcome {
    /** The action changed what it was asked to change. */
    DONE,
    /** The action was not allowed on the object in its current state; nothing changed. */
    REFUSED,
    /** Someone (a retry, a job, another operator) had already dealt with the object; nothing changed. */
    ALREADY_RESOLVED,
    /** The action ran and failed. */
    FAILED;

    public String label() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
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
