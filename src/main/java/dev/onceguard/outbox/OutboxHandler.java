package dev.onceguard.outbox;

import java.util.Set;

/**
 * Produces one effect of an outbox event. Handlers are CDI beans; the relay finds every one of them and runs each
 * in a transaction of its own. Delivery is at least once, so {@link #handle} must be safe to run again for the same
 * event: the effect needs a business key with a UNIQUE constraint, and finding it already there is a normal outcome.
 */
public interface OutboxHandler {

    enum Result {
        /** The effect was produced now. */
        EXECUTED,
        /** An earlier attempt had produced it already. */
        ALREADY_DONE,
        /** The event calls for no such effect (a license for an order without digital goods). */
        NOT_NEEDED
    }

    /** The event types this handler reacts to. */
    Set<String> eventTypes();

    /** The effect's name in metrics, logs and {@code last_error}: lower_snake, stable. */
    String effect();

    /** Runs inside the transaction the relay opened for this handler. */
    Result handle(OutboxEvent event);
}
