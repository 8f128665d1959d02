package dev.onceguard.platform.embedded;

/** Embedded mode could not start; the message says why and what to do instead. */
public class EmbeddedModeException extends RuntimeException {

    EmbeddedModeException(String message) {
        super(message);
    }

    EmbeddedModeException(String message, Throwable cause) {
        super(message, cause);
    }
}
