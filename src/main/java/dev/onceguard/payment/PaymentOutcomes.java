package dev.onceguard.payment;

import dev.onceguard.checkout.OrderSettlement;
import dev.onceguard.payment.provider.ProviderStatus;
import dev.onceguard.platform.Cause;
import dev.onceguard.platform.SqlRows;
import dev.onceguard.platform.Timestamps;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Event;
import jakarta.transaction.Transactional;
import org.jboss.logging.Logger;

import java.time.Instant;

/**
 * Applies what a provider says about a payment, from whichever source says it first (the synchronous answer,
 * a webhook, reconciliation): the payment moves through its state machine, and the first success makes the order
 * PAID (see {@link OrderSettlement}) in the same transaction. Repeated or stale facts change nothing.
 */
@ApplicationScoped
public class PaymentOutcomes {

    private static final Logger LOG = Logger.getLogger(PaymentOutcomes.class);

    private final SqlRows sql;
    private final PaymentRows rows;
    private final OrderSettlement settlement;
    private final Event<ProviderPaymentIdLearned> learned;

    public PaymentOutcomes(SqlRows sql, PaymentRows rows, OrderSettlement settlement,
                           Event<ProviderPaymentIdLearned> learned) {
        this.sql = sql;
        this.rows = rows;
        this.settlement = settlement;
        this.learned = learned;
    }

    /**
     * Stores the provider payment id when the payment did not know it yet (and then announces
     * {@link ProviderPaymentIdLearned}, in this transaction, so that events parked for it are applied), and moves
     * the payment to what the provider says.
     *
     * @return whether the payment changed state
     */
    @Transactional(Transactional.TxType.MANDATORY)
    public boolean apply(Payment payment, String providerPaymentId, ProviderStatus status, Cause cause) {
        return apply(payment, providerPaymentId, status, null, cause);
    }

    /** As {@link #apply(Payment, String, ProviderStatus, Cause)}, keeping the provider's reason of a failure. */
    @Transactional(Transactional.TxType.MANDATORY)
    public boolean apply(Payment payment, String providerPaymentId, ProviderStatus status, String failureReason,
                         Cause cause) {
        Instant now = Timestamps.now();
        if (providerPaymentId != null && payment.providerPaymentId() == null
                && rows.learnProviderPaymentId(payment.paymentId(), providerPaymentId)) {
            learned.fire(new ProviderPaymentIdLearned(payment.paymentId(), payment.provider(), providerPaymentId));
        }
        Payment.Status target = statusFor(status);
        boolean moved = PaymentStates.MACHINE.move(sql, payment.paymentId(), target, cause, now).isPresent();
        if (moved && failureReason != null && (target == Payment.Status.FAILED || target == Payment.Status.CANCELED)) {
            rows.recordFailureReason(payment.paymentId(), failureReason);
        }
        if (moved && target == Payment.Status.SUCCEEDED) {
            settlement.markPaid(payment.orderId(), payment.paymentId(), payment.userId(), cause, now);
        }
        if (moved && cause.kind().equals(Cause.WEBHOOK)) {
            // the webhook inbox row and the payment's transitions keep this fact; a storm of redelivered events must
            // not cost a log line each
            LOG.debugf("payment %s -> %s (%s) order=%s", payment.paymentId(), target, cause, payment.orderId());
        } else if (moved) {
            LOG.infof("payment %s -> %s (%s) order=%s", payment.paymentId(), target, cause, payment.orderId());
        }
        return moved;
    }

    /** The state a payment moves to when its provider says {@code status}. */
    public static Payment.Status statusFor(ProviderStatus status) {
        return switch (status) {
            case PENDING -> Payment.Status.PENDING;
            case REQUIRES_ACTION -> Payment.Status.REQUIRES_ACTION;
            case SUCCEEDED -> Payment.Status.SUCCEEDED;
            case FAILED -> Payment.Status.FAILED;
            case CANCELED -> Payment.Status.CANCELED;
        };
    }

    /** The provider's answer did not arrive: the attempt is UNKNOWN until the provider says otherwise. */
    @Transactional(Transactional.TxType.MANDATORY)
    public void markUnknown(Payment payment, Cause cause) {
        PaymentStates.MACHINE.move(sql, payment.paymentId(), Payment.Status.UNKNOWN, cause, Timestamps.now());
    }

}
