package dev.onceguard.fulfilment;

import dev.onceguard.checkout.OrderRows;
import dev.onceguard.platform.Ids;
import dev.onceguard.platform.Timestamps;
import org.jboss.logging.Logger;

/**
 * Records one notification of a kind for the user of an order, once per order: its dedupe key
 * {@code <dedupePrefix>:<orderId>} is UNIQUE. The log line names ids only, never the user's contact data.
 */
abstract class OrderNotificationHandler extends OrderEffectHandler {

    private static final Logger LOG = Logger.getLogger(OrderNotificationHandler.class);

    private final Ids ids;
    private final String kind;
    private final String dedupePrefix;

    OrderNotificationHandler(OrderRows orders, FulfilmentRows effects, Ids ids, String eventType, String effect,
                             String kind, String dedupePrefix) {
        super(orders, effects, eventType, effect);
        this.ids = ids;
        this.kind = kind;
        this.dedupePrefix = dedupePrefix;
    }

    @Override
    Result handle(OrderRows.Fulfilable order, long eventId) {
        String notificationId = ids.next("ntf");
        if (!effects.recordNotification(notificationId, dedupePrefix + ":" + order.orderId(), kind, order.orderId(),
                order.userId(), Timestamps.now())) {
            return Result.ALREADY_DONE;
        }
        LOG.infof("%s notification %s recorded for order %s (outbox event %d)", kind, notificationId, order.orderId(),
                eventId);
        return Result.EXECUTED;
    }
}
