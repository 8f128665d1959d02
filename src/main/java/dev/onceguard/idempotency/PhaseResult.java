package dev.onceguard.idempotency;

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
     */
    record RecoveryPoint(Checkpoint checkpoint, Lease lease, StoredResponse answer) implements PhaseResult {

        public RecoveryPoint {
            Objects.requireNonNull(checkpoint);
            if ((lease == Lease.GIVE_UP) != (answer != null)) {
                throw new IllegalArgumentException("a recovery point answers its caller exactly when it gives the lease up");
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
    static PhaseResult goOn(Checkpoint checkpoint) {
        return new RecoveryPoint(checkpoint, Lease.KEEP, null);
    }

    /** A recovery point at which the caller stops, answered {@code answer}, leaving the rest to the next taker. */
    static PhaseResult pause(Checkpoint checkpoint, StoredResponse answer) {
        return new RecoveryPoint(checkpoint, Lease.GIVE_UP, answer);
    }

    static PhaseResult completed(StoredResponse response) {
        return new FinalResponse(IdempotencyRecord.Status.COMPLETED, response);
    }
}
