package dev.onceguard.payment.provider;

/** The call may or may not have taken effect at the provider (timeout, 5xx, connection reset). Never a failure. */
public class ProviderOutcomeUnknown extends Exception {

    public ProviderOutcomeUnknown(String message, Throwable cause) {
        super(message, cause);
    }
}
