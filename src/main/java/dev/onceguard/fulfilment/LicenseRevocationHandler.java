package dev.onceguard.fulfilment;

import dev.onceguard.checkout.OrderSettlement;
import dev.onceguard.checkout.OrderRows;
import dev.onceguard.outbox.EffectFailure;
import dev.onceguard.outbox.OutboxEvent;
import dev.onceguard.outbox.OutboxHandler;
import dev.onceguard.platform.Timestamps;
import jakarta.enterprise.context.ApplicationScoped;
import org.jboss.logging.Logger;

import java.util.Set;

/**
 * Revokes the license of a refunded order, once: the license row keeps the time it was revoked, and a conditional
 * UPDATE revokes only one that is not yet. An order with digital goods whose license has not been issued yet (its
 * {@code ORDER_PAID} effects are still on their way) is a failure to retry: revoking nothing now would let the license
 * be issued afterwards.
 */
@ApplicationScoped
public class LicenseRevocationHandler implements OutboxHandler {

    private static final Logger LOG = Logger.getLogger(LicenseRevocationHandler.class);

    private final OrderRows orders;
    private final FulfilmentRows effects;

    public LicenseRevocationHandler(OrderRows orders, FulfilmentRows effects) {
        this.orders = orders;
        this.effects = effects;
    }

    @Override
    public Set<String> eventTypes() {
        return Set.of(OrderSettlement.ORDER_REFUNDED);
    }

    @Override
    public String effect() {
        return "license_revocation";
    }

    @Override
    public Result handle(OutboxEvent event) {
        PaidOrder order = PaidOrder.load(orders, event.aggregateId());
        if (!order.hasDigitalItems()) {
            return Result.NOT_NEEDED;
        }
        if (effects.revokeLicense(order.orderId(), Timestamps.now())) {
            LOG.infof("license of order %s revoked (outbox event %d)", order.orderId(), event.id());
            return Result.EXECUTED;
        }
        if (!effects.hasLicense(order.orderId())) {
            throw new EffectFailure("order " + order.orderId() + " has no license yet to revoke; its ORDER_PAID "
                    + "effects come first");
        }
        return Result.ALREADY_DONE;
    }
}
