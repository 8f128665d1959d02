package dev.onceguard.payment;

import dev.onceguard.payment.provider.ProviderRefund;
import dev.onceguard.payment.refund.Refund;
import dev.onceguard.payment.refund.RefundOutcomes;
import dev.onceguard.payment.refund.RefundRows;
import dev.onceguard.payment.refund.RefundService;
import dev.onceguard.platform.Draining;
import dev.onceguard.platform.Jobs;
import dev.onceguard.payment.provider.PaymentProvider;
import dev.onceguard.payment.provider.ProviderOutcomeUnknown;
import dev.onceguard.payment.provider.ProviderPayment;
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
import java.util.function.Predicate;

/**
 * Resolves PENDING payment attempts and refunds the provider has but whose webhook has not come: one that has been
 * quiet for {@code onceguard.payments.pending-check-after} is looked up at the provider. Attempts and refunds whose
 * outcome onceguard does not know at all (UNKNOWN, or CREATED, or a PENDING refund without a provider answer, with a
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
    private final RefundRows refundRows;
    private final RefundOutcomes refundOutcomes;
    private final RefundService refunds;

    public Reconciliation(PaymentProviders providers, PaymentOutcomes outcomes, PaymentsConfig config,
                          PaymentRows rows, Jobs jobs, Draining draining, RefundRows refundRows,
                          RefundOutcomes refundOutcomes, RefundService refunds) {
        this.providers = providers;
        this.outcomes = outcomes;
        this.config = config;
        this.rows = rows;
        this.jobs = jobs;
        this.draining = draining;
        this.refundRows = refundRows;
        this.refundOutcomes = refundOutcomes;
        this.refunds = refunds;
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
        Instant quietSince = Timestamps.now().minus(config.pendingCheckAfter());
        Checked payments = checkEach(QuarkusTransaction.requiringNew().call(() -> rows.quietPending(quietSince, BATCH)),
                payment -> checkPending(payment, cause));
        Checked refunds = checkEach(QuarkusTransaction.requiringNew().call(() ->
                refundRows.quietPending(quietSince, BATCH)), refund -> checkPending(refund, cause));
        return Map.of("pendingChecked", payments.checked(), "pendingResolved", payments.resolved(),
                "refundsPendingResolved", refunds.resolved());
    }

    private record Checked(long checked, long resolved) {
    }

    /** Asks about each quiet attempt or refund in turn until the replica starts shutting down. */
    private <T> Checked checkEach(List<T> quiet, Predicate<T> resolves) {
        long checked = 0;
        long resolved = 0;
        for (T each : quiet) {
            if (draining.inProgress()) {
                break;
            }
            checked++;
            if (resolves.test(each)) {
                resolved++;
            }
        }
        return new Checked(checked, resolved);
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

    private boolean checkPending(Refund refund, Cause cause) {
        Optional<PaymentProvider> provider = providers.named(refund.provider());
        if (provider.isEmpty()) {
            return false;
        }
        try {
            Payment payment = QuarkusTransaction.requiringNew().call(() -> rows.get(refund.paymentId()));
            Optional<ProviderRefund> current = provider.get().findRefund(payment.providerPaymentId(),
                    refund.refundId());
            return current.isPresent() && QuarkusTransaction.requiringNew().call(() -> {
                boolean moved = refundOutcomes.apply(refund, current.get().providerRefundId(), current.get().status(),
                        cause);
                if (moved) {
                    refunds.finishSettled(refund.refundId(), cause);
                }
                return moved;
            });
        } catch (ProviderOutcomeUnknown e) {
            LOG.warnf("reconciliation could not reach %s for refund %s: %s", refund.provider(), refund.refundId(),
                    e.getMessage());
            return false;
        }
    }
}
