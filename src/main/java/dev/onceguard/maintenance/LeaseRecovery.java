package dev.onceguard.maintenance;

import dev.onceguard.platform.Jobs;
import dev.onceguard.platform.Draining;
import dev.onceguard.idempotency.IdempotencyService;
import dev.onceguard.idempotency.Resumption;
import dev.onceguard.platform.Cause;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.runtime.Startup;
import io.quarkus.scheduler.Scheduled;
import jakarta.enterprise.context.ApplicationScoped;
import org.jboss.logging.Logger;

import java.util.Map;

/**
 * Finishes operations whose process died: every PROCESSING record whose lease has expired is handed to the engine's
 * one resume entry point ({@link IdempotencyService#resume}), which releases one that never reached an external
 * call (its own writes were rolled back with the crash, or never made; the key may be used again) and has any other
 * taken over (of two replicas, one wins) and resumed by its operation from its recovery point: a payment repeats its
 * provider call with the same provider key, never a blind new one. A record taken over counts as {@code reconciled}
 * whether its operation finished or paused again at a recovery point. Each record is resumed on its own: one whose
 * resumption throws is logged, counted as {@code failed} in the run's counts and left for the next run, and the
 * others are still recovered.
 *
 * <p>This is the one job that resumes payments and refunds whose outcome is unknown (UNKNOWN once its wait before the
 * next question to the provider is over; CREATED, or a PENDING refund without a provider answer, whose process died):
 * their records are PROCESSING with an expired lease like any other. Reconciliation only looks up the quiet PENDING
 * ones the provider already has.
 */
@ApplicationScoped
@Startup
public class LeaseRecovery {

    private static final Logger LOG = Logger.getLogger(LeaseRecovery.class);

    private final IdempotencyService idempotency;
    private final Jobs jobs;
    private final RetentionConfig config;
    private final Counter released;
    private final Counter reconciled;
    private final Draining draining;

    public LeaseRecovery(IdempotencyService idempotency, Jobs jobs,
                         RetentionConfig config, MeterRegistry registry, Draining draining) {
        this.draining = draining;
        this.idempotency = idempotency;
        this.jobs = jobs;
        this.config = config;
        this.released = counter(registry, "released");
        this.reconciled = counter(registry, "reconciled");
    }

    private static Counter counter(MeterRegistry registry, String action) {
        return Counter.builder("onceguard.lease.recovered").description("PROCESSING records recovered after their lease expired")
                .tag("action", action).register(registry);
    }

    @Scheduled(identity = Jobs.LEASE_RECOVERY, every = "${onceguard.jobs.lease-recovery.every}",
            concurrentExecution = Scheduled.ConcurrentExecution.SKIP)
    void scheduled() {
        runNow();
    }

    /** One run on an operator's request (the console's "run now"), recorded like a scheduled run. */
    public Jobs.Finished runNow() {
        return jobs.runIdentified(Jobs.LEASE_RECOVERY, runId -> run(Cause.leaseRecovery(runId)));
    }

    /** @param cause the run, named on every state change it makes; a replica shutting down takes over no more */
    public Map<String, Long> run(Cause cause) {
        long releasedNow = 0;
        long reconciledNow = 0;
        long failedNow = 0;
        for (long recordId : idempotency.expiredLeases(config.recoveryBatchSize())) {
            if (draining.inProgress()) {
                break;
            }
            Resumption resumption;
            try {
                resumption = idempotency.resume(recordId, cause);
            } catch (RuntimeException e) {
                LOG.errorf(e, "lease recovery could not resume operation %d", recordId);
                failedNow++;
                continue;
            }
            if (resumption instanceof Resumption.Released) {
                releasedNow++;
            } else if (resumption instanceof Resumption.Finished || resumption instanceof Resumption.Paused) {
                reconciledNow++;
            }
        }
        released.increment(releasedNow);
        reconciled.increment(reconciledNow);
        return Map.of("released", releasedNow, "reconciled", reconciledNow, "failed", failedNow);
    }
}
