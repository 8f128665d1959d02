package dev.onceguard.outbox;

/**
 * A handler failure whose message is safe to keep in {@code last_error} and show in the console: it names ids only,
 * never personal data or secrets. Other exceptions are recorded by their type alone.
 */
public class EffectFailure extends RuntimeException {

    public EffectFailure(String message) {
        super(message);
    }
}
