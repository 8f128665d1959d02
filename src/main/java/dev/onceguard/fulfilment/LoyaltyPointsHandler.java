package dev.onceguard.fulfilment;

import dev.onceguard.checkout.OrderRows;
import dev.onceguard.checkout.OrderSettlement;
import dev.onceguard.platform.Timestamps;
import jakarta.inject.Singleton;
import org.jboss.logging.Logger;

import java.math.BigDecimal;
import java.math.RoundingMode;

/**
 * Credits loyalty points for a paid order: one point per 100 units of the order total, rounded down (1 500.00 gives
 * 15). The ledger's {@code UNIQUE(order_id, reason)} credits each order once.
 */
@Singleton
public class LoyaltyPointsHandler extends OrderEffectHandler {

    static final String REASON = "ORDER_PAID";
    private static final BigDecimal UNITS_PER_POINT = BigDecimal.valueOf(100);
    private static final Logger LOG = Logger.getLogger(LoyaltyPointsHandler.class);

    public LoyaltyPointsHandler(OrderRows orders, FulfilmentRows effects) {
        super(orders, effects, OrderSettlement.ORDER_PAID, "loyalty_points");
    }

    static long pointsFor(BigDecimal total) {
        return total.divide(UNITS_PER_POINT, 0, RoundingMode.FLOOR).longValueExact();
    }

    @Override
    Result handle(OrderRows.Fulfilable order, long eventId) {
        long points = pointsFor(order.total());
        if (!effects.creditPoints(order.userId(), order.orderId(), REASON, points, Timestamps.now())) {
            return Result.ALREADY_DONE;
        }
        LOG.infof("%d loyalty points credited for order %s (outbox event %d)", points, order.orderId(), eventId);
        return Result.EXECUTED;
    }
}
