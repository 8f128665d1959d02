package dev.onceguard.idempotency;

import java.util.Optional;

/**
 * An operation that makes no outside call, run in two steps. Its plan reads what it needs and decides the answer,
 * writing nothing (what it read from memory it states as a {@link ClaimPrecondition}, checked by the claim); the
 * engine then claims the record with that answer already stored (the row is written once, never updated), and the
 * same statement makes the plan's {@link ClaimWrites} only if the claim inserted the record: what the operation
 * creates names the record that created it (an order names its record), and record and writes are kept together or
 * not at all. A constraint the writes break on purpose is the {@link BusinessRefusal} they declared for
 * it, stored as the result. A request the plan refuses ({@link dev.onceguard.platform.ProblemException}, nothing
 * stored) is still answered by its scope's record when it has one: a retry gets its first result, whatever the catalog
 * says today.
 *
 * @param <T> the request body
 */
@FunctionalInterface
public interface LocalOperation<T> {

    Plan plan(T body);

    /**
     * The answer the operation gives, and the writes that make it true, made with its record's claim; with a
     * {@link ClaimPrecondition}, only if what the plan read still holds when the record is claimed.
     */
    record Plan(StoredResponse response, ClaimWrites writes, Optional<ClaimPrecondition> precondition) {

        public Plan(StoredResponse response, ClaimWrites writes, ClaimPrecondition precondition) {
            this(response, writes, Optional.of(precondition));
        }
    }
}
