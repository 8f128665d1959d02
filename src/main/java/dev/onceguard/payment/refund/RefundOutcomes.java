package dev.onceguard.payment.refund;

import dev.onceguard.checkout.OrderSettlement;
import dev.onceguard.payment.provider.RefundStatus;
import dev.onceguard.platform.Cause;
import dev.onceguard.platform.SqlRows;
import dev.onceguard.platform.Timestamps;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.transaction.Transactional;
import org.jboss.logging.Logger;

import java.time.Instant;

/**
 * Applies what a provider says about a refund, from whichever source says it first (the synchronous answer, a
 * webhook, reconciliation): the refund moves through its state machine, once. A refund that succeeds adds to its
 * payment's refunded amount, and the one that completes it makes the order REFUNDED ({@link OrderSettlement}); a refund
 * that fails gives its reservation back. Repeated or stale facts change nothing.
 */
@ApplicationScoped
public class RefundOutcomes {

    private static final Logger LOG = Logger.getLogger(RefundOutcomes.class);

    private final SqlRows sql;
    private final RefundRows rows;
    private final OrderSettlement orders;
    private final RefundMetrics metrics;

    public RefundOutcomes(SqlRows sql, RefundRows rows, OrderSettlement orders, RefundMetrics metrics) {
        this.sql = sql;
        this.rows = rows;
        this.orders = orders;
        this.metrics = metrics;
    }

    /** @return whether the refund changed state */
    @Transactional(Transactional.TxType.MANDATORY)
    public boolean apply(Refund refund, String providerRefundId, RefundStatus status, Cause cause) {
        if (providerRefundId != null && refund.providerRefundId() == null) {
            rows.learnProviderRefundId(refund.refundId(), providerRefundId);
        }
        Refund.Status target = switch (status) {
            case PENDING -> Refund.Status.PENDING;
            case SUCCEEDED -> Refund.Status.SUCCEEDED;
            case FAILED -> Refund.Status.FAILED;
        };
        Instant now = Timestamps.now();
        if (RefundStates.MACHINE.move(sql, refund.refundId(), target, cause, now).isEmpty()) {
            return false;
        }
        metrics.moved(refund, target);
        LOG.infof("refund %s -> %s (%s) payment=%s", refund.refundId(), target, cause, refund.paymentId());
        if (target == Refund.Status.FAILED) {
            rows.release(refund.paymentId(), refund.amount());
        } else if (target == Refund.Status.SUCCEEDED && rows.addRefunded(refund.paymentId(), refund.amount())
                && orders.markRefunded(refund.orderId(), refund.paymentId(), refund.refundId(), cause, now)) {
            LOG.infof("order %s -> REFUNDED by refund %s", refund.orderId(), refund.refundId());
        }
        return true;
    }

    /** The provider's answer did not arrive: the refund is UNKNOWN until the provider says otherwise. */
    @Transactional(Transactional.TxType.MANDATORY)
    public void markUnknown(Refund refund, Cause cause) {
        if (RefundStates.MACHINE.move(sql, refund.refundId(), Refund.Status.UNKNOWN, cause, Timestamps.now())
                .isPresent()) {
            metrics.moved(refund, Refund.Status.UNKNOWN);
        }
    }
}
