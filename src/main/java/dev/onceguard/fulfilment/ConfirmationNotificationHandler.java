package dev.onceguard.fulfilment;

import dev.onceguard.outbox.OutboxEvent;
import dev.onceguard.outbox.OutboxHandler;
import dev.onceguard.checkout.OrderRows;
import dev.onceguard.checkout.OrderSettlement;
import dev.onceguard.platform.Ids;
import dev.onceguard.platform.Timestamps;
import jakarta.enterprise.context.ApplicationScoped;
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

    private final OrderRows orders;
    private final FulfilmentRows effects;
    private final Ids ids;

    public ConfirmationNotificationHandler(OrderRows orders, FulfilmentRows effects, Ids ids) {
        this.orders = orders;
        this.effects = effects;
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
        PaidOrder order = PaidOrder.load(orders, event.aggregateId());
        String notificationId = ids.next("ntf");
        if (!effects.recordNotification(notificationId, dedupeKey(order.orderId()), KIND, order.orderId(),
                order.userId(), Timestamps.now())) {
            return Result.ALREADY_DONE;
        }
        LOG.infof("order confirmation %s recorded for order %s (outbox event %d)", notificationId, order.orderId(),
                event.id());
        return Result.EXECUTED;
    }
}
