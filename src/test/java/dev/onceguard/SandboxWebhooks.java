package dev.onceguard;

import dev.onceguard.sandbox.SandboxConfig;
import dev.onceguard.sandbox.SandboxDeliveryWorker;
import jakarta.enterprise.context.ApplicationScoped;

import java.time.Clock;
import java.time.Duration;

/**
 * The sandbox's webhooks, delivered when a test says so: the sandbox's delivery job is off in the test profile, so
 * that no scheduled run claims an event a test is about to deliver and read.
 */
@ApplicationScoped
public class SandboxWebhooks {

    private final SandboxDeliveryWorker worker;
    private final SandboxConfig sandbox;

    public SandboxWebhooks(SandboxDeliveryWorker worker, SandboxConfig sandbox) {
        this.worker = worker;
        this.sandbox = sandbox;
    }

    /** Delivers the events due at {@code clock}'s instant to the service's sandbox webhook endpoint. */
    public void deliverDueAt(Clock clock) {
        worker.deliverDue(sandbox.webhookUrl(), clock);
    }

    /** Delivers the events due now. */
    public void deliverDue() {
        deliverDueAt(Clock.systemUTC());
    }

    /** Delivers the events due within {@code ahead} from now. */
    public void deliverDueWithin(Duration ahead) {
        deliverDueAt(Clock.offset(Clock.systemUTC(), ahead));
    }
}
