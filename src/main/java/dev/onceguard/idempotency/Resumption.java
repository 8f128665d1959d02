package dev.onceguard.idempotency;

/** What came of asking the engine to resume a record whose lease has expired. */
public sealed interface Resumption {

    /** The operation was resumed from its checkpoint and answered. */
    record Resumed(Checkpoint checkpoint, IdempotentResponse response) implements Resumption {
    }

    /** It had made no external call and kept no work (recovery point {@code started}): deleted, the key is free. */
    record Released() implements Resumption {
    }

    /** Nothing to do: the record is finished or gone, its lease is live, or another taker won it. */
    record NotTaken() implements Resumption {
    }

    /** Its operation registered no way to resume: the record stays as it is. */
    record NoResume(String operation, String recoveryPoint) implements Resumption {
    }
}
