package dev.onceguard.console;

import dev.onceguard.platform.Jobs;

import java.time.Duration;
import java.time.Instant;

/**
 * How an idempotency record ended, as its own row keeps it: what finished it (its own first request's answer, a
 * retry, lease recovery, reconciliation, a webhook or an admin action) and what the first request's client was
 * answered, both written by the engine in the statement that finished (or paused) it, never taken from the batched
 * request log. A record finished before the service kept this reads as unknown, never as a clean success.
 *
 * @param recorded          whether the row keeps its ending (false for rows older than that)
 * @param finishedBy        {@code request}, {@code lease_recovery}, {@code reconciliation}, {@code webhook},
 *                          {@code admin}; null while unfinished (or not recorded)
 * @param finishedByRef     the request id, job run id, webhook event id or audit entry id
 * @param firstAnswerStatus the HTTP status the first request's client was given; null: no answer recorded
 */
public record RecordEnding(boolean recorded, String finishedBy, String finishedByRef, Integer firstAnswerStatus,
                           Instant firstAnsweredAt, String firstRequestId, Instant createdAt, Instant completedAt) {

    public static final String REQUEST = "request";

    public boolean finished() {
        return completedAt != null;
    }

    /** Whether the ending is known: recorded by the engine, and naming what finished a finished record. */
    public boolean known() {
        return recorded && (!finished() || finishedBy != null);
    }

    /** Finished by the answer to its own first request, which its client got: the one clean path. */
    public boolean byItsOwnAnswer() {
        return known() && finished() && REQUEST.equals(finishedBy) && firstRequestId.equals(finishedByRef)
                && firstAnswerStatus != null;
    }

    /** The first request's client got no answer: known only for a record that keeps its ending. */
    public boolean firstRequestUnanswered() {
        return recorded && firstAnswerStatus == null;
    }

    /** A finished record whose first request's client got no answer: the request the crash lost. */
    public boolean lost() {
        return finished() && firstRequestUnanswered();
    }

    public String firstWaitText() {
        Duration wait = firstWait();
        return wait == null ? null : Verdict.preciseSpan(wait);
    }

    /** How long the first request's client waited for its answer; null when none is recorded. */
    public Duration firstWait() {
        return firstAnswerStatus == null || firstAnsweredAt == null ? null : Duration.between(createdAt, firstAnsweredAt);
    }

    /** What finished the record, in words: "lease recovery (run 41)", "a retry (request req-2)". */
    public String finisherText() {
        String ref = finishedByRef == null ? "" : finishedByRef;
        return switch (finishedBy) {
            case REQUEST -> firstRequestId.equals(finishedByRef) ? "its first request (" + ref + ")"
                    : "a retry (request " + ref + ")";
            case "lease_recovery" -> "lease recovery (run " + ref + ")";
            case "reconciliation" -> "reconciliation (run " + ref + ")";
            case "webhook" -> "the provider’s webhook (event " + ref + ")";
            case "admin" -> "an admin action (audit entry " + ref + ")";
            default -> finishedBy + " " + ref;
        };
    }

    /** The page about what finished it: the job's runs, the webhook event (by search), the audit log, the request. */
    public String finisherHref() {
        if (finishedBy == null) {
            return null;
        }
        return switch (finishedBy) {
            case "lease_recovery" -> "/console/jobs?job=" + Jobs.LEASE_RECOVERY;
            case "reconciliation" -> "/console/jobs?job=" + Jobs.RECONCILIATION;
            case "admin" -> finishedByRef == null ? "/console/audit" : "/console/audit/" + finishedByRef;
            default -> finishedByRef == null ? null : ConsoleLinks.search(finishedByRef);
        };
    }

    /**
     * The verdict's sentence for a finished record that did not end by its own request's answer, or null when it
     * did (or is unfinished): the path in plain words, then {@code outcome} ("one order, one charge").
     *
     * @param callsOut whether the operation called a provider, whose own answer a later finisher used
     */
    public String pathHeadline(String outcome, boolean callsOut) {
        if (!finished() || byItsOwnAnswer()) {
            return null;
        }
        if (!known()) {
            return "How this operation ended is unknown: it finished before the service recorded what finishes an "
                    + "operation and whether its first request got an answer. It came to " + outcome + ".";
        }
        String later = Verdict.span(Duration.between(createdAt, completedAt)) + " later";
        String by = callsOut && !REQUEST.equals(finishedBy) ? " with the provider’s own answer" : "";
        if (firstAnswerStatus == null) {
            return "The process died before answering; " + finisherText() + " finished it " + later + by + ": "
                    + outcome + ".";
        }
        return "The first request was answered " + firstAnswerStatus + " after " + Verdict.preciseSpan(firstWait())
                + "; " + finisherText() + " finished it " + later + by + ": " + outcome + ".";
    }
}
