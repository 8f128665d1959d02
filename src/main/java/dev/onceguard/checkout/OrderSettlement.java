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
 * caller's transaction, once; an order already past AWAITING_PAYMENT stays as it is and nothing is announced.
 */
@ApplicationScoped
public class OrderSettlement {

    /** Outbox event type whose effects fulfil the order. */
    public static final String ORDER_PAID = "ORDER_PAID";

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
}
