package dev.onceguard.idempotency;

/**
 * The first atomic phase of an operation that calls out, run inside the transaction that claims its record: the
 * operation's first writes, usually ending at the recovery point from which its registered
 * {@link ResumableOperation} goes on. A {@link BusinessRefusal} thrown here is stored as the result.
 *
 * @param <T> the request body
 */
@FunctionalInterface
public interface FirstPhase<T> {

    PhaseResult run(T body, long recordId);
}
