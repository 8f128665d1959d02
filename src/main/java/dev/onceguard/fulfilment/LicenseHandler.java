package dev.onceguard.fulfilment;

import dev.onceguard.checkout.OrderRows;
import dev.onceguard.checkout.OrderSettlement;
import dev.onceguard.platform.Ids;
import dev.onceguard.platform.Timestamps;
import jakarta.inject.Singleton;
import org.jboss.logging.Logger;

/** Issues one license per paid order that has at least one DIGITAL item; {@code UNIQUE(order_id)} keeps it one. */
@Singleton
public class LicenseHandler extends OrderEffectHandler {

    private static final Logger LOG = Logger.getLogger(LicenseHandler.class);

    private final Ids ids;

    public LicenseHandler(OrderRows orders, FulfilmentRows effects, Ids ids) {
        super(orders, effects, OrderSettlement.ORDER_PAID, "license");
        this.ids = ids;
    }

    @Override
    Result handle(OrderRows.Fulfilable order, long eventId) {
        if (!order.hasDigitalItems()) {
            return Result.NOT_NEEDED;
        }
        String licenseId = ids.next("lic");
        if (!effects.issueLicense(licenseId, order.orderId(), order.userId(), Timestamps.now())) {
            return Result.ALREADY_DONE;
        }
        LOG.infof("license %s issued for order %s (outbox event %d)", licenseId, order.orderId(), eventId);
        return Result.EXECUTED;
    }
}
