package dev.onceguard.fulfilment;

import dev.onceguard.checkout.OrderSettlement;
import dev.onceguard.checkout.OrderRows;
import dev.onceguard.platform.Ids;
import jakarta.inject.Singleton;

/** Records the refund notification for the user once per refunded order (dedupe key {@code order-refunded:<orderId>}). */
@Singleton
public class RefundNotificationHandler extends OrderNotificationHandler {

    static final String KIND = "REFUND_CONFIRMATION";

    public RefundNotificationHandler(OrderRows orders, FulfilmentRows effects, Ids ids) {
        super(orders, effects, ids, OrderSettlement.ORDER_REFUNDED, "refund_notification", KIND, "order-refunded");
    }
}
