package dev.onceguard.maintenance;

import dev.onceguard.platform.Draining;
import dev.onceguard.idempotency.IdempotencyRecords;
import dev.onceguard.idempotency.IdempotencyService;
import dev.onceguard.idempotency.Operation;
import dev.onceguard.payment.PaymentService;
import dev.onceguard.platform.Cause;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.narayana.jta.QuarkusTransaction;
import io.quarkus.runtime.Startup;
import io.quarkus.scheduler.Scheduled;
import jakarta.enterprise.context.ApplicationScoped;
import org.jboss.logging.Logger;

import java.time.Instant;
import java.util.Map;

/**
 * Finishes operations whose process died: a PROCESSING record whose lease has expired is taken over with a
 * conditional statement (so two replicas never both take it) and resumed from its recovery point. An operation
 * that never reached an external call is released: its record is deleted (its own writes were rolled back with
 * the crash, or never made) and the key may be used again. One that may have called a provider is handed to
 * reconciliation, which repeats the call with the same provider key; it is never re-executed blindly.
 */
@ApplicationScoped
@Startup
public class LeaseRecovery {

    private static final Logger LOG = Logger.getLogger(LeaseRecovery.class);

    private final IdempotencyRecords records;
    private final IdempotencyService idempotency;
    private final PaymentService payments;
    private final Jobs jobs;
    private final RetentionConfig config;
    private final Counter released;
    private final Counter reconciled;
    private final Draining draining;

    public LeaseRecovery(IdempotencyRecords records, IdempotencyService idempotency, PaymentService payments, Jobs jobs,
                         RetentionConfig config, MeterRegistry registry, Draining draining) {
        this.draining = draining;
        this.records = records;
        this.idempotency = idempotency;
        this.payments = payments;
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
        jobs.runIdentified(Jobs.LEASE_RECOVERY, runId -> run(Cause.leaseRecovery(runId)));
    }

    /** One run on an operator's request (the console's "run now"), recorded like a scheduled run. */
    public Jobs.Finished runNow() {
        return jobs.runNowIdentified(Jobs.LEASE_RECOVERY, runId -> run(Cause.leaseRecovery(runId)));
    }

    /** @param cause the run, named on every state change it makes; a replica shutting down takes over no more */
    public Map<String, Long> run(Cause cause) {
        long releasedNow = 0;
        long reconciledNow = 0;
        for (IdempotencyRecords.ExpiredLease lease : QuarkusTransaction.requiringNew().call(() ->
                records.expiredLeases(Instant.now(), config.recoveryBatchSize()))) {
            if (draining.inProgress()) {
                break;
            }
            long recordId = lease.recordId();
            String operation = lease.operation();
            if (IdempotencyService.STARTED.equals(lease.recoveryPoint())) {
                if (QuarkusTransaction.requiringNew().call(() -> idempotency.releaseIfAbandoned(recordId))) {
                    releasedNow++;
                }
            } else if (Operation.CREATE_PAYMENT.wireName().equals(operation)) {
                if (idempotency.takeOver(recordId).map(checkpoint -> payments.resume(recordId, checkpoint, cause)).isPresent()) {
                    reconciledNow++;
                }
            } else {
                LOG.warnf("record %d of %s is PROCESSING at recovery point %s, which has no recovery", recordId,
                        operation, lease.recoveryPoint());
            }
        }
        released.increment(releasedNow);
        reconciled.increment(reconciledNow);
        return Map.of("released", releasedNow, "reconciled", reconciledNow);
    }
}
