package dev.onceguard.fulfilment;

import dev.onceguard.outbox.OutboxEvent;
import dev.onceguard.outbox.OutboxHandler;
import dev.onceguard.checkout.OrderSettlement;
import dev.onceguard.platform.Timestamps;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.persistence.EntityManager;
import org.jboss.logging.Logger;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.Set;

/**
 * Credits loyalty points for a paid order: one point per 100 units of the order total, rounded down (1 500.00 gives
 * 15). The ledger's {@code UNIQUE(order_id, reason)} credits each order once.
 */
@ApplicationScoped
public class LoyaltyPointsHandler implements OutboxHandler {

    static final String REASON = "ORDER_PAID";
    private static final BigDecimal UNITS_PER_POINT = BigDecimal.valueOf(100);
    private static final Logger LOG = Logger.getLogger(LoyaltyPointsHandler.class);

    private final EntityManager em;

    public LoyaltyPointsHandler(EntityManager em) {
        this.em = em;
    }

    static long pointsFor(BigDecimal total) {
        return total.divide(UNITS_PER_POINT, 0, RoundingMode.FLOOR).longValueExact();
    }

    @Override
    public Set<String> eventTypes() {
        return Set.of(OrderSettlement.ORDER_PAID);
    }

    @Override
    public String effect() {
        return "loyalty_points";
    }

    @Override
    public Result handle(OutboxEvent event) {
        PaidOrder order = PaidOrder.load(em, event.aggregateId());
        long points = pointsFor(order.total());
        int inserted = em.createNativeQuery("""
                        INSERT INTO loyalty_ledger (user_id, order_id, reason, points, created_at)
                        VALUES (:userId, :orderId, :reason, :points, :now)
                        ON CONFLICT (order_id, reason) DO NOTHING""")
                .setParameter("userId", order.userId())
                .setParameter("orderId", order.orderId())
                .setParameter("reason", REASON)
                .setParameter("points", points)
                .setParameter("now", Timestamps.now())
                .executeUpdate();
        if (inserted == 0) {
            return Result.ALREADY_DONE;
        }
        LOG.infof("%d loyalty points credited for order %s (outbox event %d)", points, order.orderId(), event.id());
        return Result.EXECUTED;
    }
}
