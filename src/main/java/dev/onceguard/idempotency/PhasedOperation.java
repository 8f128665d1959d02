package dev.onceguard.idempotency;

/**
 * An operation that calls out and therefore cannot run in one transaction (architecture invariant 3).
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
