package dev.onceguard.fulfilment;

import dev.onceguard.checkout.OrderSettlement;
import dev.onceguard.checkout.OrderRows;
import dev.onceguard.outbox.OutboxEvent;
import dev.onceguard.outbox.OutboxHandler;
import dev.onceguard.platform.Timestamps;
import jakarta.enterprise.context.ApplicationScoped;
import org.jboss.logging.Logger;

import java.util.Set;

/**
 * Returns the loyalty points of a refunded order: one negative ledger entry of what {@link LoyaltyPointsHandler}
 * credits for it, under its own reason, so the ledger's {@code UNIQUE(order_id, reason)} debits each order once. The
 * debit does not wait for the credit: the two add up to nothing in either order.
 */
@ApplicationScoped
public class LoyaltyPointsReturnHandler implements OutboxHandler {

    static final String REASON = OrderSettlement.ORDER_REFUNDED;
    private static final Logger LOG = Logger.getLogger(LoyaltyPointsReturnHandler.class);

    private final OrderRows orders;
    private final FulfilmentRows effects;

    public LoyaltyPointsReturnHandler(OrderRows orders, FulfilmentRows effects) {
        this.orders = orders;
        this.effects = effects;
    }

    @Override
    public Set<String> eventTypes() {
        return Set.of(OrderSettlement.ORDER_REFUNDED);
    }

    @Override
    public String effect() {
        return "loyalty_points_return";
    }

    @Override
    public Result handle(OutboxEvent event) {
        PaidOrder order = PaidOrder.load(orders, event.aggregateId());
        long points = LoyaltyPointsHandler.pointsFor(order.total());
        if (points == 0) {
            return Result.NOT_NEEDED;
        }
        if (!effects.creditPoints(order.userId(), order.orderId(), REASON, -points, Timestamps.now())) {
            return Result.ALREADY_DONE;
        }
        LOG.infof("%d loyalty points returned for refunded order %s (outbox event %d)", points, order.orderId(),
                event.id());
        return Result.EXECUTED;
    }
}
