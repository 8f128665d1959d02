package dev.onceguard.idempotency;

import dev.onceguard.platform.Cause;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * Every read and write of the engine's records: the engine decides, the store keeps. Each method is one statement
 * (or, in memory, one atomic step) that holds on its own: "only one" is always decided by the store, by the scope's
 * uniqueness or by a conditional change, never by a read followed by a write. Inside a transaction the statement takes
 * part in it.
 */
interface IdempotencyStore {

    /**
     * Inserts the PROCESSING record of work that calls out, under {@code leaseExpiresAt}; {@link ScopeTaken} when the
     * scope already has one (after waiting for an uncommitted one).
     */
    ClaimOutcome claim(IdempotentRequest<?> request, String recoveryPoint, Instant now, Instant leaseExpiresAt,
                       Instant expiresAt);

    /**
     * Inserts the record already finished with {@code response}, and in the same statement the operation's
     * {@code writes} that make the answer true: the row is written once and never updated, and record and writes are
     * kept together or not at all. With a {@code precondition}, the same statement first checks that what the plan
     * relied on still holds, and writes nothing when it does not.
     *
     * @param now        when the request reached the engine (the record's creation)
     * @param answeredAt when the response was decided (the record's completion)
     * @throws BusinessRefusal when the writes broke a constraint the operation declared a refusal for; nothing is kept
     */
    ClaimOutcome claimFinished(IdempotentRequest<?> request, IdempotencyRecord.Status status, StoredResponse response,
                               Instant now, Instant answeredAt, Instant expiresAt, ClaimWrites writes,
                               Optional<ClaimPrecondition> precondition);

    Optional<IdempotencyRecord> findByScope(String userId, String operation, String key);

    Optional<IdempotencyRecord> findById(long recordId);

    /**
     * Stores the final response on a record that others may race for, by primary key, only while it is PROCESSING
     * and still the applier's (held by its lease; for an outsider, unheld); the UPDATE waits for a concurrent change of
     * the row and checks again after it.
     *
     * @return false when the record was not changed: finished or gone, taken over from its holder, or, for an outsider,
     * held
     */
    boolean complete(long recordId, IdempotencyRecord.Status status, StoredResponse response, Instant now,
                     Instant expiresAt, Applier applier, Cause finisher);

    /**
     * Saves where a PROCESSING record's operation stands, when its lease ends and from when lease recovery may take it
     * (null: unchanged), under the same condition as {@link #complete}; with {@code answer}, the status the caller
     * answers its client now (an interim 202), kept as the first answer when the caller is the record's first request.
     *
     * @return false when the record was not changed, as for {@link #complete}
     */
    boolean checkpoint(long recordId, Checkpoint checkpoint, Instant leaseExpiresAt, Instant recoverAfter,
                       Applier applier, Cause caller, Integer answer, Instant now);

    /** Takes an expired lease: of two takers exactly one gets the checkpoint back. */
    Optional<TakenOver> takeOver(long recordId, Instant now, Instant leaseExpiresAt);

    /** Deletes a PROCESSING record abandoned at {@code recoveryPoint} whose lease expired; of two, one succeeds. */
    boolean release(long recordId, String recoveryPoint, Instant now);

    /** Evidence of a key reused with another payload: who, when, which key, both fingerprints, the refused body. */
    void recordConflict(long recordId, IdempotentRequest<?> request, String originalFingerprint, Instant now);

    /** The ids of PROCESSING records whose lease has expired and whose operation asked no longer wait, oldest first. */
    List<Long> expiredLeases(Instant now, int limit);

    /**
     * Deletes at most {@code limit} finished records that expired before {@code cutoff}, except those a
     * {@link RecordKeeper} keeps; replicas running at once share the work instead of waiting on each other.
     *
     * @return the number deleted
     */
    int expire(Instant cutoff, int limit, List<RecordKeeper> keepers);

    /** How a claim's statement ended. */
    sealed interface ClaimOutcome permits Inserted, ScopeTaken, PreconditionFailed {
    }

    /** The record was inserted: the scope is this request's. */
    record Inserted(long recordId) implements ClaimOutcome {
    }

    /** The scope already had a record (after waiting for an uncommitted one); nothing was written. */
    record ScopeTaken() implements ClaimOutcome {
    }

    /** What the plan relied on no longer holds; nothing was written. */
    record PreconditionFailed() implements ClaimOutcome {
    }

    /**
     * Who applies a phase's result to a record: the caller holding its lease (the request, a retry or a job that took
     * it over), known by the lease it set, which a later taker replaces; or an outsider who holds none (a webhook that
     * settled the operation's payment), which may change the record only while no live lease holds it, since a holder
     * would overwrite the change with its own.
     */
    sealed interface Applier permits Holder, Outsider {
    }

    /** The caller that claimed or took over the record and set its lease to {@code lease}. */
    record Holder(Instant lease) implements Applier {
    }

    /** Someone without a lease, at {@code now}. */
    record Outsider(Instant now) implements Applier {
    }

    /** A record taken over: its operation, where that operation stands, and the taker's lease. */
    record TakenOver(String operation, Checkpoint checkpoint, Instant lease) {
    }
}
