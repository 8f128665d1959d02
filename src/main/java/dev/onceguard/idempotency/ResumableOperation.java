package dev.onceguard.idempotency;

import dev.onceguard.platform.Cause;

/**
 * An operation's one way back into a record it left unfinished, registered by the operation itself (a bean of this
 * type). The engine calls it for every take-over of an expired lease: a retry with the same key, lease recovery,
 * reconciliation and the console's admin actions alike.
 */
public interface ResumableOperation {

    /** The name the operation's records carry ({@code create-payment}). */
    String operation();

    /**
     * Resumes from {@code checkpoint} a record the caller now holds under a fresh lease.
     *
     * @param cause who resumes it, recorded with every state change the resumption makes
     */
    IdempotentResponse resume(long recordId, Checkpoint checkpoint, Cause cause);
}
