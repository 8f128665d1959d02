package dev.onceguard.payment.refund;

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
 * Reconciliation's part for refunds, run by each reconciliation run: a PENDING refund the provider is still working on
 * is looked up once it has been quiet for {@code onceguard.payments.pending-check-after}. A refund whose outcome
 * onceguard does not know (UNKNOWN, or PENDING without a provider answer whose process died) is lease recovery's, as
 * an unknown payment is.
 */
@ApplicationScoped
public class RefundReconciliation {

    static final int BATCH = 100;
    private static final Logger LOG = Logger.getLogger(RefundReconciliation.class);

    private final RefundRows rows;
    private final RefundOutcomes outcomes;
    private final RefundService refunds;
    private final PaymentRows payments;
    private final PaymentProviders providers;
    private final PaymentsConfig config;
    private final Draining draining;

    public RefundReconciliation(RefundRows rows, RefundOutcomes outcomes,
                                RefundService refunds, PaymentRows payments, PaymentProviders providers,
                                PaymentsConfig config, Draining draining) {
        this.rows = rows;
        this.outcomes = outcomes;
        this.refunds = refunds;
        this.payments = payments;
        this.providers = providers;
        this.config = config;
        this.draining = draining;
    }

    /** @return how many refunds the run resolved */
    public int reconcile(Cause cause) {
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
        return resolved;
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
