package dev.onceguard.idempotency;

/**
 * An operation that makes no outside call, run inside the transaction that claims its record and stores its result,
 * so that its writes and its record commit together. It gets the record's id to name the record from what it creates
 * (an order names the record that created it). A {@link BusinessRefusal} thrown here is stored as the result.
 *
 * @param <T> the request body
 */
@FunctionalInterface
public interface LocalOperation<T> {

    StoredResponse run(T body, long recordId);
}
