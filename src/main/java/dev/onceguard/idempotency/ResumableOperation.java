package dev.onceguard.idempotency;

import dev.onceguard.platform.Cause;

/**
 * An operation's one way on from a recovery point, registered by the operation itself (a bean of this type). The
 * engine calls it whenever the record's holder goes on: the request that has just run the first phase, a retry that
 * took over an expired lease, lease recovery and the console's admin actions alike.
 */
public interface ResumableOperation {

    /** The name the operation's records carry ({@code create-payment}). */
    String name();

    /**
     * Outside any transaction, for a record the caller holds under a lease: whatever the operation must do outside
     * the database from {@code checkpoint} (the provider call), then the atomic phase that applies its answer, for
     * the engine to run and apply.
     *
     * @param cause who goes on, recorded with every state change the phase makes
     */
    AtomicPhase resume(long recordId, Checkpoint checkpoint, Cause cause);
}
