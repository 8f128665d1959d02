package dev.onceguard.idempotency;

/**
 * An operation that calls an outside party and therefore cannot run in one transaction: its first writes commit
 * with the idempotency claim, the call runs outside any transaction, and its outcome commits in a transaction of its
 * own. Each commit leaves a checkpoint from which a retry or a recovery job resumes without calling out afresh.
 *
 * @param <T> the request body
 */
public interface PhasedOperation<T> {

    /**
     * Phase (a), inside the transaction that claims the record: the operation's first writes. A
     * {@link BusinessRefusal} thrown here is stored as the result.
     */
    Checkpoint start(T body, long recordId);

    /**
     * Phases (b) and (c), outside any transaction, for a fresh start or a record taken over from its checkpoint:
     * the external call, then one transaction that stores its outcome and, if final, completes the record.
     */
    IdempotentResponse resume(long recordId, Checkpoint checkpoint);
}
