package dev.onceguard.fulfilment;

import dev.onceguard.outbox.OutboxEvent;
import dev.onceguard.outbox.OutboxHandler;
import dev.onceguard.checkout.OrderSettlement;
import dev.onceguard.platform.Ids;
import dev.onceguard.platform.Timestamps;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.persistence.EntityManager;
import org.jboss.logging.Logger;

import java.util.Set;

/**
 * Records the order confirmation for the user, once per order: the dedupe key {@code order-paid:<orderId>} is
 * UNIQUE. The log line names ids only, never the user's contact data.
 */
@ApplicationScoped
public class ConfirmationNotificationHandler implements OutboxHandler {

    static final String KIND = "ORDER_CONFIRMATION";
    private static final Logger LOG = Logger.getLogger(ConfirmationNotificationHandler.class);

    private final EntityManager em;
    private final Ids ids;

    public ConfirmationNotificationHandler(EntityManager em, Ids ids) {
        this.em = em;
        this.ids = ids;
    }

    static String dedupeKey(String orderId) {
        return "order-paid:" + orderId;
    }

    @Override
    public Set<String> eventTypes() {
        return Set.of(OrderSettlement.ORDER_PAID);
    }

    @Override
    public String effect() {
        return "notification";
    }

    @Override
    public Result handle(OutboxEvent event) {
        PaidOrder order = PaidOrder.load(em, event.aggregateId());
        String notificationId = ids.next("ntf");
        int inserted = em.createNativeQuery("""
                        INSERT INTO notifications (notification_id, dedupe_key, kind, order_id, user_id, created_at)
                        VALUES (:notificationId, :dedupeKey, :kind, :orderId, :userId, :now)
                        ON CONFLICT (dedupe_key) DO NOTHING""")
                .setParameter("notificationId", notificationId)
                .setParameter("dedupeKey", dedupeKey(order.orderId()))
                .setParameter("kind", KIND)
                .setParameter("orderId", order.orderId())
                .setParameter("userId", order.userId())
                .setParameter("now", Timestamps.now())
                .executeUpdate();
        if (inserted == 0) {
            return Result.ALREADY_DONE;
        }
        LOG.infof("order confirmation %s recorded for order %s (outbox event %d)", notificationId, order.orderId(),
                event.id());
        return Result.EXECUTED;
    }
}
