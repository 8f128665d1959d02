package dev.onceguard.outbox;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

import java.time.Duration;

@ConfigMapping(prefix = "onceguard.outbox")
public interface OutboxConfig {

    /** Events claimed by one relay run. */
    @WithDefault("100")
    int batchSize();

    /** How long a claim keeps other relays away; a crashed relay's events are due again after it. */
    @WithDefault("60s")
    Duration claimLease();

    /** Attempts before an event is dead-lettered. */
    @WithDefault("8")
    int maxAttempts();

    /** Wait after the first failed attempt; it doubles with each further failure. */
    @WithDefault("10s")
    Duration backoffBase();

    /** Longest wait between two attempts. */
    @WithDefault("10m")
    Duration backoffMax();

    /** The wait after the {@code attempts}-th failed attempt: base · 2^(attempts − 1), capped. */
    default Duration backoffAfter(int attempts) {
        int doublings = Math.min(Math.max(attempts - 1, 0), 30);
        Duration wait = backoffBase().multipliedBy(1L << doublings);
        return wait.compareTo(backoffMax()) > 0 ? backoffMax() : wait;
    }
}
