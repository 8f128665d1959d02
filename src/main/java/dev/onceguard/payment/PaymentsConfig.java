package dev.onceguard.payment;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

import java.time.Duration;

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
     * How long lease recovery leaves a payment waiting for the customer (3-D Secure) alone before asking the provider
     * about it: the provider's webhook settles it when the customer is done, and a client's retry asks at once.
     */
    @WithDefault("10m")
    Duration customerActionWait();
}
