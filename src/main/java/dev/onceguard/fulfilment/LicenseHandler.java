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

/** Issues one license per paid order that has at least one DIGITAL item; {@code UNIQUE(order_id)} keeps it one. */
@ApplicationScoped
public class LicenseHandler implements OutboxHandler {

    private static final Logger LOG = Logger.getLogger(LicenseHandler.class);

    private final EntityManager em;
    private final Ids ids;

    public LicenseHandler(EntityManager em, Ids ids) {
        this.em = em;
        this.ids = ids;
    }

    @Override
    public Set<String> eventTypes() {
        return Set.of(OrderSettlement.ORDER_PAID);
    }

    @Override
    public String effect() {
        return "license";
    }

    @Override
    public Result handle(OutboxEvent event) {
        PaidOrder order = PaidOrder.load(em, event.aggregateId());
        if (!order.hasDigitalItems()) {
            return Result.NOT_NEEDED;
        }
        String licenseId = ids.next("lic");
        int inserted = em.createNativeQuery("""
                        INSERT INTO licenses (license_id, order_id, user_id, created_at)
                        VALUES (:licenseId, :orderId, :userId, :now)
                        ON CONFLICT (order_id) DO NOTHING""")
                .setParameter("licenseId", licenseId)
                .setParameter("orderId", order.orderId())
                .setParameter("userId", order.userId())
                .setParameter("now", Timestamps.now())
                .executeUpdate();
        if (inserted == 0) {
            return Result.ALREADY_DONE;
        }
        LOG.infof("license %s issued for order %s (outbox event %d)", licenseId, order.orderId(), event.id());
        return Result.EXECUTED;
    }
}
