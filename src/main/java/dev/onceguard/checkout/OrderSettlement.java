package dev.onceguard.checkout;

import dev.onceguard.outbox.Outbox;
import dev.onceguard.platform.Cause;
import dev.onceguard.platform.SqlRows;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.transaction.Transactional;

import java.time.Instant;
import java.util.Map;

/**
 * The order's side of a successful payment: the order becomes PAID and {@link #ORDER_PAID} is announced in the
 * caller's transaction, once; an order already past AWAITING_PAYMENT stays as it is and nothing is announced. And of a
 * payment refunded in full: the order becomes REFUNDED and {@link #ORDER_REFUNDED} is announced in the caller's
 * transaction, once (the outbox's UNIQUE (event type, order) decides); its effects take back those of ORDER_PAID.
 */
@ApplicationScoped
public class OrderSettlement {

    /** Outbox event type whose effects fulfil the order. */
    public static final String ORDER_PAID = "ORDER_PAID";
    /** Outbox event type whose effects take the order's fulfilment back. */
    public static final String ORDER_REFUNDED = "ORDER_REFUNDED";

    private final SqlRows sql;
    private final Outbox outbox;

    public OrderSettlement(SqlRows sql, Outbox outbox) {
        this.sql = sql;
        this.outbox = outbox;
    }

    /** @return whether the order became PAID by this call */
    @Transactional(Transactional.TxType.MANDATORY)
    public boolean markPaid(String orderId, String paymentId, String userId, Cause cause, Instant at) {
        return OrderStates.MACHINE.move(sql, orderId, Order.Status.PAID, cause, at,
                outbox.enqueuedOnMove(ORDER_PAID, "order", orderId, Map.of("orderId", orderId, "paymentId", paymentId,
                        "userId", userId))).isPresent();
    }

    /** @return whether the order became REFUNDED by this call */
    @Transactional(Transactional.TxType.MANDATORY)
    public boolean markRefunded(String orderId, String paymentId, String refundId, Cause cause, Instant at) {
        return OrderStates.MACHINE.move(sql, orderId, Order.Status.REFUNDED, cause, at,
                outbox.enqueuedOnMove(ORDER_REFUNDED, "order", orderId, Map.of("orderId", orderId, "paymentId",
                        paymentId, "refundId", refundId))).isPresent();
    }
}
