package dev.onceguard.fulfilment;

import dev.onceguard.checkout.OrderRows;
import dev.onceguard.outbox.EffectFailure;
import dev.onceguard.outbox.OutboxEvent;
import dev.onceguard.outbox.OutboxHandler;

import java.util.Set;

/**
 * One effect of an order's outbox event, from what the effect needs to know of the order
 * ({@link OrderRows.Fulfilable}), written through {@link FulfilmentRows}; an order that does not exist fails the effect. Its subclasses are
 * {@code @Singleton}s: a proxied bean needs a no-args constructor, and this one takes its settings in its constructor.
 */
abstract class OrderEffectHandler implements OutboxHandler {

    final FulfilmentRows effects;
    private final OrderRows orders;
    private final String eventType;
    private final String effect;

    OrderEffectHandler(OrderRows orders, FulfilmentRows effects, String eventType, String effect) {
        this.orders = orders;
        this.effects = effects;
        this.eventType = eventType;
        this.effect = effect;
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
        return handle(orders.fulfilable(event.aggregateId()).orElseThrow(() -> new EffectFailure("order "
                + event.aggregateId() + " does not exist")), event.id());
    }

    abstract Result handle(OrderRows.Fulfilable order, long eventId);
}
