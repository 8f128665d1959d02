package dev.onceguard.webhook;

import java.util.Locale;

/** What became of one webhook delivery; the label is the {@code outcome} tag and the answer's {@code status}. */
public enum DeliveryOutcome {
    PROCESSED, DUPLICATE, IGNORED, REJECTED_SIGNATURE, FAILED;

    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }
}
