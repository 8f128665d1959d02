package dev.onceguard.sandbox;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

import java.net.URI;
import java.time.Duration;

@ConfigMapping(prefix = "onceguard.sandbox")
public interface SandboxConfig {

    /** Whether the built-in sandbox provider is served at {@code /sandbox/v1} and delivers its webhooks. */
    @WithDefault("false")
    boolean enabled();

    /** Where the service calls the sandbox (the sandbox adapter's base URL). */
    URI baseUrl();

    /** Where the sandbox delivers its events. */
    URI webhookUrl();

    /**
     * Schedule of the webhook delivery worker (read by its {@code @Scheduled} expression); {@code off} in the test
     * profile, whose tests deliver the due events themselves.
     */
    @WithDefault("1s")
    String deliveryEvery();

    /** How long after a {@code tok_pending} payment its {@code payment.succeeded} is due. */
    @WithDefault("3s")
    Duration pendingDelay();

    /** How long after {@code payment.succeeded} the stale {@code payment.pending} of {@code tok_out_of_order} is due. */
    @WithDefault("1s")
    Duration staleEventDelay();

    /** Timeout of one webhook delivery. */
    @WithDefault("5s")
    Duration deliveryTimeout();

    /** Delay before the first retry of a failed delivery; it doubles with every further attempt. */
    @WithDefault("1s")
    Duration deliveryBackoff();

    /** Attempts after which a delivery is given up and kept as DEAD. */
    @WithDefault("10")
    int deliveryMaxAttempts();

    /** Events the delivery worker sends in one run at most. */
    @WithDefault("100")
    int deliveryBatch();
}
