package dev.onceguard.fulfilment;

import dev.onceguard.checkout.OrderRows;
import dev.onceguard.checkout.OrderSettlement;
import dev.onceguard.outbox.EffectFailure;
import dev.onceguard.platform.Timestamps;
import jakarta.inject.Singleton;
import org.jboss.logging.Logger;

/**
 * Revokes the license of a refunded order, once: the license row keeps the time it was revoked, and a conditional
 * UPDATE revokes only one that is not yet. An order with digital goods whose license has not been issued yet (its
 * {@code ORDER_PAID} effects are still on their way) is a failure to retry: revoking nothing now would let the license
 * be issued afterwards.
 */
@Singleton
public class LicenseRevocationHandler extends OrderEffectHandler {

    private static final Logger LOG = Logger.getLogger(LicenseRevocationHandler.class);

    public LicenseRevocationHandler(OrderRows orders, FulfilmentRows effects) {
        super(orders, effects, OrderSettlement.ORDER_REFUNDED, "license_revocation");
    }

    @Override
    Result handle(OrderRows.Fulfilable order, long eventId) {
        if (!order.hasDigitalItems()) {
            return Result.NOT_NEEDED;
        }
        if (effects.revokeLicense(order.orderId(), Timestamps.now())) {
            LOG.infof("license of order %s revoked (outbox event %d)", order.orderId(), eventId);
            return Result.EXECUTED;
        }
        if (!effects.hasLicense(order.orderId())) {
            throw new EffectFailure("order " + order.orderId() + " has no license yet to revoke; its ORDER_PAID "
                    + "effects come first");
        }
        return Result.ALREADY_DONE;
    }
}
