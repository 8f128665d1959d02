package dev.onceguard.idempotency;

import java.util.function.LongConsumer;

/**
 * An operation that makes no outside call, run in one transaction with its record, in two steps. Its plan reads what
 * it needs and decides the answer, writing nothing; the engine claims the record with that answer already stored
 * (the row is written once, never updated), and only a claim that succeeded runs the plan's writes, which get the
 * record's id to name it from what they create (an order names the record that created it). Record and writes commit
 * together. A {@link BusinessRefusal} thrown by the writes rolls them back and is stored as the result. A request the
 * plan refuses ({@link dev.onceguard.platform.ProblemException}, nothing stored) is still answered by its scope's
 * record when it has one: a retry gets its first result, whatever the catalog says today.
 *
 * @param <T> the request body
 */
@FunctionalInterface
public interface LocalOperation<T> {

    Plan plan(T body);

    /** The answer the operation gives, and the writes that make it true, run once its record is claimed. */
    record Plan(StoredResponse response, LongConsumer writes) {
    }
}
