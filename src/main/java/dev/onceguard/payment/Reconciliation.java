package dev.onceguard.payment;

import dev.onceguard.platform.Draining;
import dev.onceguard.platform.Jobs;
import dev.onceguard.payment.provider.PaymentProvider;
import dev.onceguard.payment.provider.ProviderOutcomeUnknown;
import dev.onceguard.payment.provider.ProviderPayment;
import dev.onceguard.payment.refund.RefundReconciliation;
import dev.onceguard.platform.Cause;
import dev.onceguard.platform.Timestamps;
import io.quarkus.narayana.jta.QuarkusTransaction;
import io.quarkus.scheduler.Scheduled;
import jakarta.enterprise.context.ApplicationScoped;
import org.jboss.logging.Logger;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Resolves PENDING payment attempts the provider has but whose webhook has not come: one that has been quiet for a
 * while is looked up by its provider payment id. Refunds are reconciled the same way in the same run
 * ({@link RefundReconciliation}). Attempts whose outcome onceguard does not know at all (UNKNOWN, or CREATED with a
 * process that died) are lease recovery's: their records are PROCESSING with an expired lease, and lease recovery
 * resumes them through the engine with the same provider key.
 */
@ApplicationScoped
public class Reconciliation {

    private static final Logger LOG = Logger.getLogger(Reconciliation.class);
    static final int BATCH = 100;

    private final PaymentProviders providers;
    private final PaymentOutcomes outcomes;
    private final PaymentsConfig config;
    private final PaymentRows rows;
    private final Jobs jobs;
    private final Draining draining;
    private final RefundReconciliation refunds;

    public Reconciliation(PaymentProviders providers,
                          PaymentOutcomes outcomes, PaymentsConfig config, PaymentRows rows, Jobs jobs,
                          Draining draining, RefundReconciliation refunds) {
        this.draining = draining;
        this.refunds = refunds;
        this.providers = providers;
        this.outcomes = outcomes;
        this.config = config;
        this.rows = rows;
        this.jobs = jobs;
    }

    @Scheduled(identity = Jobs.RECONCILIATION, every = "${onceguard.jobs.reconciliation.every}",
            concurrentExecution = Scheduled.ConcurrentExecution.SKIP)
    void scheduled() {
        runNow();
    }

    /** One run on an operator's request (the console's "run now"), recorded like a scheduled run. */
    public Jobs.Finished runNow() {
        return jobs.runIdentified(Jobs.RECONCILIATION, runId -> reconcile(Cause.reconciliation(runId)));
    }

    /**
     * @param cause the run, named on every state change it makes; a replica shutting down takes over no more
     * @return the run's counts, as its job run records them
     */
    public Map<String, Long> reconcile(Cause cause) {
        int checked = 0;
        int resolved = 0;
        for (Payment payment : quietPendingPayments()) {
            if (draining.inProgress()) {
                break;
            }
            checked++;
            if (checkPending(payment, cause)) {
                resolved++;
            }
        }
        return Map.of("pendingChecked", (long) checked, "pendingResolved", (long) resolved,
                "refundsPendingResolved", (long) refunds.reconcile(cause));
    }

    private List<Payment> quietPendingPayments() {
        Instant quietSince = Timestamps.now().minus(config.pendingCheckAfter());
        return QuarkusTransaction.requiringNew().call(() -> rows.quietPending(quietSince, BATCH));
    }

    private boolean checkPending(Payment payment, Cause cause) {
        Optional<PaymentProvider> provider = providers.named(payment.provider());
        if (provider.isEmpty()) {
            return false;
        }
        try {
            ProviderPayment current = provider.get().retrieve(payment.providerPaymentId());
            return QuarkusTransaction.requiringNew().call(() ->
                    outcomes.apply(payment, current.providerPaymentId(), current.status(), current.failureReason(),
                            cause));
        } catch (ProviderOutcomeUnknown e) {
            LOG.warnf("reconciliation could not reach %s for payment %s: %s", payment.provider(), payment.paymentId(),
                    e.getMessage());
            return false;
        }
    }
}
