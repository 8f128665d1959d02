package dev.onceguard.idempotency;

/** What came of asking the engine to resume a record whose lease has expired. */
public sealed interface Resumption {

    /**
     * The operation is finished: {@code response} is the final answer its record stores, reached by this resumption
     * or, when someone else got there first, the one it had already stored.
     */
    record Finished(Checkpoint resumedFrom, StoredResponse response) implements Resumption {
    }

    /** The operation went on and stopped again at a recovery point, still unfinished (an outcome still unknown). */
    record Paused(Checkpoint resumedFrom, Checkpoint pausedAt) implements Resumption {
    }

    /** It had made no external call and kept no work (recovery point {@code started}): deleted, the key is free. */
    record Released() implements Resumption {
    }

    /**
     * Nothing to do: the record is finished or gone, its lease is live, or another taker won it, before this one or
     * while this one worked past the end of its lease (what this one reached was then not applied).
     */
    record NotTaken() implements Resumption {
    }

    /** Its operation registered no way to resume: the record stays as it is. */
    record NoResume(String operation, String recoveryPoint) implements Resumption {
    }
}
