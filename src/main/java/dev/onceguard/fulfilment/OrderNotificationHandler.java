package dev.onceguard.fulfilment;

import dev.onceguard.checkout.OrderRows;
import dev.onceguard.outbox.OutboxEvent;
import dev.onceguard.outbox.OutboxHandler;
import dev.onceguard.platform.Ids;
import dev.onceguard.platform.Timestamps;
import org.jboss.logging.Logger;

import java.util.Set;

/**
 * Records one notification of a kind for the user of an order, once per order: its dedupe key
 * {@code <dedupePrefix>:<orderId>} is UNIQUE. The log line names ids only, never the user's contact data. Its
 * subclasses are {@code @Singleton}s: a proxied bean needs a no-args constructor, and this one takes its settings in
 * its constructor.
 */
abstract class OrderNotificationHandler implements OutboxHandler {

    private static final Logger LOG = Logger.getLogger(OrderNotificationHandler.class);

    private final OrderRows orders;
    private final FulfilmentRows effects;
    private final Ids ids;
    private final String eventType;
    private final String effect;
    private final String kind;
    private final String dedupePrefix;

    OrderNotificationHandler(OrderRows orders, FulfilmentRows effects, Ids ids, String eventType, String effect,
                             String kind, String dedupePrefix) {
        this.orders = orders;
        this.effects = effects;
        this.ids = ids;
        this.eventType = eventType;
        this.effect = effect;
        this.kind = kind;
        this.dedupePrefix = dedupePrefix;
    }

    @Override
    public Set<String> eventTypes() {
        return Set.of(eventType);
    }

    @Override
    public String effect() {
        return effect;
    }

    @Override
    public Result handle(OutboxEvent event) {
        PaidOrder order = PaidOrder.load(orders, event.aggregateId());
        String notificationId = ids.next("ntf");
        if (!effects.recordNotification(notificationId, dedupePrefix + ":" + order.orderId(), kind, order.orderId(),
                order.userId(), Timestamps.now())) {
            return Result.ALREADY_DONE;
        }
        LOG.infof("%s notification %s recorded for order %s (outbox event %d)", kind, notificationId, order.orderId(),
                event.id());
        return Result.EXECUTED;
    }
}
