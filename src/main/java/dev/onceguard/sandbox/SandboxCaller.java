package dev.onceguard.sandbox;

import java.time.Duration;

/**
 * What the sandbox knows of the client that calls it: how long it waits for an answer, which the simulated late
 * answers overrun. The client's adapter implements it, so the sandbox names nothing of the payment capability.
 */
public interface SandboxCaller {

    Duration callTimeout();
}
