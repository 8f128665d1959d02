package dev.onceguard.fulfilment;

import dev.onceguard.checkout.OrderRows;
import dev.onceguard.outbox.EffectFailure;

import java.math.BigDecimal;

/** What the effects of {@code ORDER_PAID} need to know about the order. */
record PaidOrder(String orderId, String userId, BigDecimal total, boolean hasDigitalItems) {

    static PaidOrder load(OrderRows orders, String orderId) {
        OrderRows.Fulfilable order = orders.fulfilable(orderId)
                .orElseThrow(() -> new EffectFailure("order " + orderId + " does not exist"));
        return new PaidOrder(orderId, order.userId(), order.total(), order.hasDigitalItems());
    }
}
