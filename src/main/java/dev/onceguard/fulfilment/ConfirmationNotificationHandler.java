package dev.onceguard.fulfilment;

import dev.onceguard.checkout.OrderRows;
import dev.onceguard.checkout.OrderSettlement;
import dev.onceguard.platform.Ids;
import jakarta.inject.Singleton;

/** Records the order confirmation for the user once per paid order (dedupe key {@code order-paid:<orderId>}). */
@Singleton
public class ConfirmationNotificationHandler extends OrderNotificationHandler {

    static final String KIND = "ORDER_CONFIRMATION";

    public ConfirmationNotificationHandler(OrderRows orders, FulfilmentRows effects, Ids ids) {
        super(orders, effects, ids, OrderSettlement.ORDER_PAID, "notification", KIND, "order-paid");
    }
}
