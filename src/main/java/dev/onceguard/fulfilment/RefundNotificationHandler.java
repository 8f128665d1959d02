package dev.onceguard.fulfilment;

import dev.onceguard.checkout.OrderRefunds;
import dev.onceguard.checkout.OrderRows;
import dev.onceguard.outbox.OutboxEvent;
import dev.onceguard.outbox.OutboxHandler;
import dev.onceguard.platform.Ids;
import dev.onceguard.platform.Timestamps;
import jakarta.enterprise.context.ApplicationScoped;
import org.jboss.logging.Logger;

import java.util.Set;

/** Records the refund notification for the user, once per order: the dedupe key {@code order-refunded:<orderId>}. */
@ApplicationScoped
public class RefundNotificationHandler implements OutboxHandler {

    static final String KIND = "REFUND_CONFIRMATION";
    private static final Logger LOG = Logger.getLogger(RefundNotificationHandler.class);

    private final OrderRows orders;
    private final FulfilmentRows effects;
    private final Ids ids;

    public RefundNotificationHandler(OrderRows orders, FulfilmentRows effects, Ids ids) {
        this.orders = orders;
        this.effects = effects;
        this.ids = ids;
    }

    static String dedupeKey(String orderId) {
        return "order-refunded:" + orderId;
    }

    @Override
    public Set<String> eventTypes() {
        return Set.of(OrderRefunds.ORDER_REFUNDED);
    }

    @Override
    public String effect() {
        return "refund_notification";
    }

    @Override
    public Result handle(OutboxEvent event) {
        PaidOrder order = PaidOrder.load(orders, event.aggregateId());
        String notificationId = ids.next("ntf");
        if (!effects.recordNotification(notificationId, dedupeKey(order.orderId()), KIND, order.orderId(),
                order.userId(), Timestamps.now())) {
            return Result.ALREADY_DONE;
        }
        LOG.infof("refund notification %s recorded for order %s (outbox event %d)", notificationId, order.orderId(),
                event.id());
        return Result.EXECUTED;
    }
}
