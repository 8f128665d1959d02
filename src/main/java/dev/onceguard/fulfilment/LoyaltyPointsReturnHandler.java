package dev.onceguard.fulfilment;

import dev.onceguard.checkout.OrderRows;
import dev.onceguard.checkout.OrderSettlement;
import dev.onceguard.platform.Timestamps;
import jakarta.inject.Singleton;
import org.jboss.logging.Logger;

/**
 * Returns the loyalty points of a refunded order: one negative ledger entry of what {@link LoyaltyPointsHandler}
 * credits for it, under its own reason, so the ledger's {@code UNIQUE(order_id, reason)} debits each order once. The
 * debit does not wait for the credit: the two add up to nothing in either order.
 */
@Singleton
public class LoyaltyPointsReturnHandler extends OrderEffectHandler {

    static final String REASON = OrderSettlement.ORDER_REFUNDED;
    private static final Logger LOG = Logger.getLogger(LoyaltyPointsReturnHandler.class);

    public LoyaltyPointsReturnHandler(OrderRows orders, FulfilmentRows effects) {
        super(orders, effects, OrderSettlement.ORDER_REFUNDED, "loyalty_points_return");
    }

    @Override
    Result handle(OrderRows.Fulfilable order, long eventId) {
        long points = LoyaltyPointsHandler.pointsFor(order.total());
        if (points == 0) {
            return Result.NOT_NEEDED;
        }
        if (!effects.creditPoints(order.userId(), order.orderId(), REASON, -points, Timestamps.now())) {
            return Result.ALREADY_DONE;
        }
        LOG.infof("%d loyalty points returned for refunded order %s (outbox event %d)", points, order.orderId(),
                eventId);
        return Result.EXECUTED;
    }
}
