package dev.onceguard.fulfilment;

import dev.onceguard.checkout.Order;
import dev.onceguard.checkout.OrderStates;
import dev.onceguard.outbox.EventDelivered;
import dev.onceguard.checkout.OrderSettlement;
import dev.onceguard.platform.Cause;
import dev.onceguard.platform.SqlRows;
import dev.onceguard.platform.Timestamps;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import org.jboss.logging.Logger;

/**
 * When every effect of {@code ORDER_PAID} is done, the order becomes FULFILLED, in the transaction that marks the
 * event DONE; an order already FULFILLED stays as it is.
 */
@ApplicationScoped
public class OrderFulfilment {

    private static final Logger LOG = Logger.getLogger(OrderFulfilment.class);

    private final SqlRows sql;

    public OrderFulfilment(SqlRows sql) {
        this.sql = sql;
    }

    void onDelivered(@Observes EventDelivered delivered) {
        if (!OrderSettlement.ORDER_PAID.equals(delivered.event().eventType())) {
            return;
        }
        String orderId = delivered.event().aggregateId();
        OrderStates.MACHINE.move(sql, orderId, Order.Status.FULFILLED, Cause.fulfilment(delivered.event().id()),
                        Timestamps.now())
                .ifPresent(from -> LOG.infof("order %s -> FULFILLED (outbox event %d)", orderId, delivered.event().id()));
    }
}
