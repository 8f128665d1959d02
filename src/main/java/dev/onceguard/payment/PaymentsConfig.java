package dev.onceguard.payment;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

import java.time.Duration;
import java.time.Instant;

@ConfigMapping(prefix = "onceguard.payments")
public interface PaymentsConfig {

    /** Timeout of one provider call; past it the outcome is UNKNOWN, never failed. */
    @WithDefault("5s")
    Duration providerTimeout();

    /** The provider new payments go to. */
    @WithDefault("sandbox")
    String provider();

    /** A PENDING attempt older than this is checked with the provider by reconciliation. */
    @WithDefault("1m")
    Duration pendingCheckAfter();

    /**
     * Whether a payment attempt first asks the provider for the payments it holds of the order, to adopt the charge of
     * an attempt the database lost instead of charging again (decision 0045): one more provider call per attempt,
     * which a deployment whose database cannot lose an answered commit (a synchronous standby) may save.
     */
    @WithDefault("true")
    boolean adoptLostCharges();

    /**
     * How long lease recovery leaves a payment waiting for the customer (3-D Secure) alone before asking the provider
     * about it: the provider's webhook settles it when the customer is done, and a client's retry asks at once.
     */
    @WithDefault("10m")
    Duration customerActionWait();

    /**
     * The shortest wait before lease recovery and reconciliation ask the provider again about an attempt (a payment or
     * a refund) whose outcome is unknown. A client's retry with the same key asks at once.
     */
    @WithDefault("10s")
    Duration unknownRecheckInitial();

    /** The longest such wait: a provider down for a day is asked about at least this often. */
    @WithDefault("30m")
    Duration unknownRecheckMax();

    /**
     * How long to leave an attempt created at {@code createdAt} alone after another unknown answer: as long as it has
     * existed, between {@link #unknownRecheckInitial} and {@link #unknownRecheckMax}, so the waits double from one
     * check to the next without a counter, as providers ask of a request whose outcome is unknown.
     */
    default Duration unknownRecheckWait(Instant createdAt, Instant now) {
        Duration age = Duration.between(createdAt, now);
        Duration atLeast = age.compareTo(unknownRecheckInitial()) < 0 ? unknownRecheckInitial() : age;
        return atLeast.compareTo(unknownRecheckMax()) > 0 ? unknownRecheckMax() : atLeast;
    }
}
