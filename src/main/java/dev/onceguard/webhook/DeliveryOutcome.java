package dev.onceguard.webhook;

import java.util.Locale;

/**
 * What became of one webhook delivery; the label is the {@code outcome} tag and the answer's {@code status}.
 * REJECTED: authentic, but its amount or currency is not its payment's; PENDING_MATCH: kept until its payment is known.
 */
public enum DeliveryOutcome {
    PROCESSED, DUPLICATE, IGNORED, REJECTED, PENDING_MATCH, REJECTED_SIGNATURE, FAILED;

    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }
}
