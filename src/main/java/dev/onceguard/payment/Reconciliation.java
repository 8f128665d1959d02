package dev.onceguard.payment;

import dev.onceguard.platform.Draining;
import dev.onceguard.idempotency.IdempotencyService;
import dev.onceguard.idempotency.Resumption;
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
 * Resolves payment attempts whose outcome onceguard does not know, by asking the provider, never by a blind
 * new call: an UNKNOWN attempt's operation, or a CREATED one whose process died before it stored the provider's
 * answer (its lease ran out), is handed to the engine's resume entry point, which takes it over and has the payment go
 * on from its recovery point with the same provider key: a final answer finishes the idempotency record, so the
 * client's retry replays it; an answer still unknown pauses it again at {@code outcome_unknown} (counted as
 * {@code stillUnknown}, among {@code resumed}). A PENDING attempt that has been quiet for a while is looked up by its
 * provider payment id. Refunds are reconciled the same way in the same run ({@link RefundReconciliation}).
 */
@ApplicationScoped
public class Reconciliation {

    private static final Logger LOG = Logger.getLogger(Reconciliation.class);
    static final int BATCH = 100;

    /** @param failed operations whose resumption threw; each is logged and left for the next run */
    public record Result(int resumed, int stillUnknown, int failed, int pendingChecked, int pendingResolved,
                         RefundReconciliation.Result refunds) {

        public Map<String, Long> counts() {
            return Map.of("resumed", (long) resumed, "stillUnknown", (long) stillUnknown, "failed", (long) failed,
                    "pendingChecked", (long) pendingChecked, "pendingResolved", (long) pendingResolved,
                    "refundsResumed", (long) refunds.resumed(), "refundsStillUnknown", (long) refunds.stillUnknown(),
                    "refundsFailed", (long) refunds.failed(), "refundsPendingResolved", (long) refunds.pendingResolved());
        }
    }

    private final IdempotencyService idempotency;
    private final PaymentProviders providers;
    private final PaymentOutcomes outcomes;
    private final PaymentsConfig config;
    private final PaymentRows rows;
    private final Jobs jobs;
    private final Draining draining;
    private final RefundReconciliation refunds;

    public Reconciliation(IdempotencyService idempotency, PaymentProviders providers,
                          PaymentOutcomes outcomes, PaymentsConfig config, PaymentRows rows, Jobs jobs,
                          Draining draining, RefundReconciliation refunds) {
        this.draining = draining;
        this.refunds = refunds;
        this.idempotency = idempotency;
        this.providers = providers;
        this.outcomes = outcomes;
        this.config = config;
        this.rows = rows;
        this.jobs = jobs;
    }

    @Scheduled(identity = Jobs.RECONCILIATION, every = "${onceguard.jobs.reconciliation.every}",
            concurrentExecution = Scheduled.ConcurrentExecution.SKIP)
    void scheduled() {
        jobs.runIdentified(Jobs.RECONCILIATION, runId -> reconcile(Cause.reconciliation(runId)).counts());
    }

    /** One run on an operator's request (the console's "run now"), recorded like a scheduled run. */
    public Jobs.Finished runNow() {
        return jobs.runNowIdentified(Jobs.RECONCILIATION, runId -> reconcile(Cause.reconciliation(runId)).counts());
    }

    /** @param cause the run, named on every state change it makes; a replica shutting down takes over no more */
    public Result reconcile(Cause cause) {
        int resumed = 0;
        int stillUnknown = 0;
        int failed = 0;
        List<Long> unknown = QuarkusTransaction.requiringNew().call(() ->
                rows.operationsOfUnknownOutcomes(Timestamps.now(), BATCH));
        for (Long recordId : unknown) {
            if (draining.inProgress()) {
                break;
            }
            Resumption resumption;
            try {
                resumption = idempotency.resume(recordId, cause);
            } catch (RuntimeException e) {
                // one payment the provider refuses must not keep the others unresolved
                LOG.errorf(e, "reconciliation could not resume operation %d", recordId);
                failed++;
                continue;
            }
            if (resumption instanceof Resumption.Finished) {
                resumed++;
            } else if (resumption instanceof Resumption.Paused) {
                resumed++;
                stillUnknown++;
            }
        }
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
        return new Result(resumed, stillUnknown, failed, checked, resolved, refunds.reconcile(cause));
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
