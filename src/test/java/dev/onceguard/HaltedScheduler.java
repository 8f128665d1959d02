package dev.onceguard;

import io.quarkus.test.junit.QuarkusTestProfile;

import java.util.Map;

/**
 * An application whose jobs are switched on but never fire, because the scheduler stays halted: a test sees what the
 * configuration alone changes, and writes any job run itself. Lease recovery is on (its promise on an operation's page
 * depends on it); the request log is written every five rows and its interval never comes. The tests that need these
 * share one application, so the suite starts it once.
 */
public class HaltedScheduler implements QuarkusTestProfile {

    @Override
    public Map<String, String> getConfigOverrides() {
        return Map.of("quarkus.scheduler.start-mode", "halted",
                "onceguard.jobs.lease-recovery.every", "1h",
                "onceguard.idempotency.request-log.flush-every", "1h",
                "onceguard.idempotency.request-log.batch-rows", "5");
    }
}
