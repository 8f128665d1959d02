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

/** Issues one license per paid order that has at least one DIGITAL item; {@code UNIQUE(order_id)} keeps it one. */
@ApplicationScoped
public class LicenseHandler implements OutboxHandler {

    private static final Logger LOG = Logger.getLogger(LicenseHandler.class);

    private final OrderRows orders;
    private final FulfilmentRows effects;
    private final Ids ids;

    public LicenseHandler(OrderRows orders, FulfilmentRows effects, Ids ids) {
        this.orders = orders;
        this.effects = effects;
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
        PaidOrder order = PaidOrder.load(orders, event.aggregateId());
        if (!order.hasDigitalItems()) {
            return Result.NOT_NEEDED;
        }
        String licenseId = ids.next("lic");
        if (!effects.issueLicense(licenseId, order.orderId(), order.userId(), Timestamps.now())) {
            return Result.ALREADY_DONE;
        }
        LOG.infof("license %s issued for order %s (outbox event %d)", licenseId, order.orderId(), event.id());
        return Result.EXECUTED;
    }
}
