package dev.onceguard.payment.refund;

import dev.onceguard.idempotency.IdempotencyService;
import dev.onceguard.idempotency.Resumption;
import dev.onceguard.payment.Payment;
import dev.onceguard.payment.PaymentProviders;
import dev.onceguard.payment.PaymentRows;
import dev.onceguard.payment.PaymentsConfig;
import dev.onceguard.payment.provider.PaymentProvider;
import dev.onceguard.payment.provider.ProviderOutcomeUnknown;
import dev.onceguard.payment.provider.ProviderRefund;
import dev.onceguard.platform.Cause;
import dev.onceguard.platform.Draining;
import dev.onceguard.platform.Timestamps;
import io.quarkus.narayana.jta.QuarkusTransaction;
import jakarta.enterprise.context.ApplicationScoped;
import org.jboss.logging.Logger;

import java.util.List;
import java.util.Optional;

/**
 * Reconciliation's part for refunds, run by each reconciliation run: a refund whose outcome onceguard does not know
 * (UNKNOWN, or PENDING without a provider answer whose process died) has its operation resumed through the engine,
 * which looks the refund up at the provider by its id and calls again with the same key only when the provider has
 * none; a PENDING refund the provider is still working on is looked up once it has been quiet for
 * {@code onceguard.payments.pending-check-after}.
 */
@ApplicationScoped
public class RefundReconciliation {

    /** @param resumed operations taken over and resumed; @param failed resumptions that threw, left for the next run */
    public record Result(int resumed, int stillUnknown, int failed, int pendingResolved) {
    }

    static final int BATCH = 100;
    private static final Logger LOG = Logger.getLogger(RefundReconciliation.class);

    private final IdempotencyService idempotency;
    private final RefundRows rows;
    private final RefundOutcomes outcomes;
    private final RefundService refunds;
    private final PaymentRows payments;
    private final PaymentProviders providers;
    private final PaymentsConfig config;
    private final Draining draining;

    public RefundReconciliation(IdempotencyService idempotency, RefundRows rows, RefundOutcomes outcomes,
                                RefundService refunds, PaymentRows payments, PaymentProviders providers,
                                PaymentsConfig config, Draining draining) {
        this.idempotency = idempotency;
        this.rows = rows;
        this.outcomes = outcomes;
        this.refunds = refunds;
        this.payments = payments;
        this.providers = providers;
        this.config = config;
        this.draining = draining;
    }

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
            try {
                Resumption resumption = idempotency.resume(recordId, cause);
                if (resumption instanceof Resumption.Finished) {
                    resumed++;
                } else if (resumption instanceof Resumption.Paused) {
                    resumed++;
                    stillUnknown++;
                }
            } catch (RuntimeException e) {
                LOG.errorf(e, "reconciliation could not resume refund operation %d", recordId);
                failed++;
            }
        }
        int resolved = 0;
        List<Refund> quiet = QuarkusTransaction.requiringNew().call(() ->
                rows.quietPending(Timestamps.now().minus(config.pendingCheckAfter()), BATCH));
        for (Refund refund : quiet) {
            if (draining.inProgress()) {
                break;
            }
            if (checkPending(refund, cause)) {
                resolved++;
            }
        }
        return new Result(resumed, stillUnknown, failed, resolved);
    }

    private boolean checkPending(Refund refund, Cause cause) {
        Optional<PaymentProvider> provider = providers.named(refund.provider());
        if (provider.isEmpty()) {
            return false;
        }
        try {
            Payment payment = QuarkusTransaction.requiringNew().call(() -> payments.get(refund.paymentId()));
            Optional<ProviderRefund> current = provider.get().findRefund(payment.providerPaymentId(),
                    refund.refundId());
            return current.isPresent() && QuarkusTransaction.requiringNew().call(() -> {
                boolean moved = outcomes.apply(refund, current.get().providerRefundId(), current.get().status(), cause);
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
