package dev.onceguard.idempotency;

import java.time.Duration;
import java.util.Objects;

/**
 * What one atomic phase of an operation comes to. The engine runs the phase in a transaction it opens and applies
 * this result to the operation's record in that same transaction, so the phase's own writes and the record's new
 * state commit together or not at all.
 */
public sealed interface PhaseResult {

    /** Nothing changed: the record stays as it is. */
    record NoOp() implements PhaseResult {
    }

    /**
     * The operation reached a recovery point: the checkpoint is saved on the record, which stays PROCESSING.
     *
     * @param lease  {@link Lease#KEEP}: the caller goes straight on with the operation's next phase;
     *               {@link Lease#GIVE_UP}: the caller stops here and the next retry or recovery may take over at once
     * @param answer what the caller is answered now when it gives the lease up (the payment's 202, with a client
     *               secret that must never be replayed): never stored; null when the lease is kept
     * @param recoveryWaits when the lease is given up, how long lease recovery leaves the record alone (a client's
     *               retry may still take it over at once); zero when the lease is kept
     */
    record RecoveryPoint(Checkpoint checkpoint, Lease lease, StoredResponse answer, Duration recoveryWaits)
            implements PhaseResult {

        public RecoveryPoint {
            Objects.requireNonNull(checkpoint);
            if ((lease == Lease.GIVE_UP) != (answer != null)) {
                throw new IllegalArgumentException("a recovery point answers its caller exactly when it gives the lease up");
            }
            if (recoveryWaits.isNegative() || (lease == Lease.KEEP && !recoveryWaits.isZero())) {
                throw new IllegalArgumentException("only a recovery point that gives the lease up may make recovery wait");
            }
        }
    }

    /** The operation is finished: COMPLETED with a result or FAILED with a refusal, stored and replayed forever. */
    record FinalResponse(IdempotencyRecord.Status status, StoredResponse response) implements PhaseResult {

        public FinalResponse {
            if (status == IdempotencyRecord.Status.PROCESSING) {
                throw new IllegalArgumentException("a final response finishes its record");
            }
            Objects.requireNonNull(response);
        }
    }

    enum Lease { KEEP, GIVE_UP }

    static PhaseResult noOp() {
        return new NoOp();
    }

    /** A recovery point from which the same caller goes on at once. */
    static PhaseResult continueAt(Checkpoint checkpoint) {
        return new RecoveryPoint(checkpoint, Lease.KEEP, null, Duration.ZERO);
    }

    /** A recovery point at which the caller stops, answered {@code answer}, leaving the rest to the next taker. */
    static PhaseResult pause(Checkpoint checkpoint, StoredResponse answer) {
        return pause(checkpoint, answer, Duration.ZERO);
    }

    /**
     * As {@link #pause(Checkpoint, StoredResponse)}, for an operation that waits for something that settles it by
     * itself (a customer's 3-D Secure challenge, settled by the provider's webhook): lease recovery leaves it alone for
     * {@code recoveryWaits} instead of asking again on each of its runs.
     */
    static PhaseResult pause(Checkpoint checkpoint, StoredResponse answer, Duration recoveryWaits) {
        return new RecoveryPoint(checkpoint, Lease.GIVE_UP, answer, recoveryWaits);
    }

    static PhaseResult completed(StoredResponse response) {
        return new FinalResponse(IdempotencyRecord.Status.COMPLETED, response);
    }
}
