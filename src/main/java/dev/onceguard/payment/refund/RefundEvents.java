package dev.onceguard.payment.refund;

import dev.onceguard.payment.PaymentRows;
import dev.onceguard.payment.provider.ProviderEvent;
import dev.onceguard.payment.provider.RefundFact;
import dev.onceguard.platform.Cause;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.transaction.Transactional;
import org.jboss.logging.Logger;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.Optional;

/**
 * Applies a provider's refund event, inside the webhook inbox row's transaction: the event is matched to its refund by
 * the {@code refund_id} metadata onceguard sent, or by the provider refund id; it moves the refund only when its
 * amount, currency and payment are the refund's. However often the same fact arrives, the refund moves once, so its
 * effects (the order REFUNDED, its effects taken back) happen once.
 */
@ApplicationScoped
public class RefundEvents {

    /** What came of the event, for the inbox to record. */
    public enum Outcome { APPLIED, STALE, UNMATCHED, MISMATCH }

    /** @param paymentId the refunded payment, when the event matched a refund */
    public record Applied(Outcome outcome, String reason, String paymentId) {
    }

    private static final Logger LOG = Logger.getLogger(RefundEvents.class);

    private final RefundRows rows;
    private final RefundOutcomes outcomes;
    private final RefundService refunds;
    private final PaymentRows payments;

    public RefundEvents(RefundRows rows, RefundOutcomes outcomes, RefundService refunds,
                        PaymentRows payments) {
        this.rows = rows;
        this.outcomes = outcomes;
        this.refunds = refunds;
        this.payments = payments;
    }

    @Transactional(Transactional.TxType.MANDATORY)
    public Applied apply(String provider, ProviderEvent event, Cause cause) {
        RefundFact fact = event.refund();
        Optional<Refund> match = match(provider, fact);
        if (match.isEmpty()) {
            return new Applied(Outcome.UNMATCHED, "no refund of onceguard's is provider refund "
                    + fact.providerRefundId(), null);
        }
        Refund refund = match.get();
        Optional<String> mismatch = mismatch(refund, event);
        if (mismatch.isPresent()) {
            LOG.warnf("webhook %s event %s rejected for refund %s: %s", provider, event.eventId(), refund.refundId(),
                    mismatch.get());
            return new Applied(Outcome.MISMATCH, mismatch.get(), refund.paymentId());
        }
        if (outcomes.apply(refund, fact.providerRefundId(), fact.status(), cause)) {
            refunds.finishSettled(refund.refundId(), cause);
            return new Applied(Outcome.APPLIED, null, refund.paymentId());
        }
        return new Applied(Outcome.STALE, "stale or repeated (refund " + refund.refundId() + " is "
                + rows.get(refund.refundId()).status() + ")", refund.paymentId());
    }

    private Optional<Refund> match(String provider, RefundFact fact) {
        Optional<Refund> byId = fact.refundId() == null ? Optional.empty()
                : rows.find(fact.refundId()).filter(r -> r.provider().equals(provider));
        return byId.or(() -> fact.providerRefundId() == null ? Optional.empty()
                : rows.findByProviderRefund(provider, fact.providerRefundId()));
    }

    private Optional<String> mismatch(Refund refund, ProviderEvent event) {
        RefundFact fact = event.refund();
        if (fact.amount() == null || fact.currency() == null || fact.amount().compareTo(refund.amount()) != 0
                || !fact.currency().equalsIgnoreCase(refund.currency())) {
            return Optional.of("amount mismatch: the event says " + money(fact.amount(), fact.currency()) + ", refund "
                    + refund.refundId() + " is " + money(refund.amount(), refund.currency()));
        }
        if (refund.providerRefundId() != null && fact.providerRefundId() != null
                && !refund.providerRefundId().equals(fact.providerRefundId())) {
            return Optional.of("the event is about provider refund " + fact.providerRefundId() + ", refund "
                    + refund.refundId() + " is " + refund.providerRefundId());
        }
        String providerPaymentId = payments.get(refund.paymentId()).providerPaymentId();
        if (event.providerPaymentId() != null && !event.providerPaymentId().equals(providerPaymentId)) {
            return Optional.of("the event refunds provider payment " + event.providerPaymentId() + ", refund "
                    + refund.refundId() + " is of " + providerPaymentId);
        }
        return Optional.empty();
    }

    private static String money(BigDecimal amount, String currency) {
        return amount == null ? "no amount" : amount.setScale(Math.max(2, amount.scale()), RoundingMode.UNNECESSARY)
                .toPlainString() + " " + currency;
    }
}
