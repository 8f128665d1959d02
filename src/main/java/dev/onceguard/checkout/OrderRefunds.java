package dev.onceguard.checkout;

import dev.onceguard.outbox.Outbox;
import dev.onceguard.platform.Cause;
import dev.onceguard.platform.SqlRows;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.transaction.Transactional;

import java.time.Instant;
import java.util.Map;

/**
 * The order's side of a payment refunded in full: the order becomes REFUNDED and {@link #ORDER_REFUNDED} is announced
 * in the caller's transaction, once (the outbox's UNIQUE (event type, order) decides); its effects take back the
 * effects of {@link OrderSettlement#ORDER_PAID}.
 */
@ApplicationScoped
public class OrderRefunds {

    /** Outbox event type whose effects take the order's fulfilment back. */
    public static final String ORDER_REFUNDED = "ORDER_REFUNDED";

    private final SqlRows sql;
    private final Outbox outbox;

    public OrderRefunds(SqlRows sql, Outbox outbox) {
        this.sql = sql;
        this.outbox = outbox;
    }

    /** @return whether the order became REFUNDED by this call */
    @Transactional(Transactional.TxType.MANDATORY)
    public boolean markRefunded(String orderId, String paymentId, String refundId, Cause cause, Instant at) {
        return OrderStates.MACHINE.move(sql, orderId, Order.Status.REFUNDED, cause, at,
                outbox.enqueuedOnMove(ORDER_REFUNDED, "order", orderId, Map.of("orderId", orderId, "paymentId",
                        paymentId, "refundId", refundId))).isPresent();
    }
}
