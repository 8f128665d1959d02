package dev.onceguard.fulfilment;

import dev.onceguard.checkout.Order;
import dev.onceguard.checkout.OrderStates;
import dev.onceguard.outbox.EventDelivered;
import dev.onceguard.checkout.OrderSettlement;
import dev.onceguard.platform.Cause;
import dev.onceguard.platform.Timestamps;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.persistence.EntityManager;
import org.jboss.logging.Logger;

/**
 * When every effect of {@code ORDER_PAID} is done, the order becomes FULFILLED, in the transaction that marks the
 * event DONE; an order already FULFILLED stays as it is.
 */
@ApplicationScoped
public class OrderFulfilment {

    private static final Logger LOG = Logger.getLogger(OrderFulfilment.class);

    private final EntityManager em;

    public OrderFulfilment(EntityManager em) {
        this.em = em;
    }

    void onDelivered(@Observes EventDelivered delivered) {
        if (!OrderSettlement.ORDER_PAID.equals(delivered.event().eventType())) {
            return;
        }
        String orderId = delivered.event().aggregateId();
        OrderStates.MACHINE.move(em, orderId, Order.Status.FULFILLED, Cause.fulfilment(delivered.event().id()),
                        Timestamps.now())
                .ifPresent(from -> LOG.infof("order %s -> FULFILLED (outbox event %d)", orderId, delivered.event().id()));
    }
}
