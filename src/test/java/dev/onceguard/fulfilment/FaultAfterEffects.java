package dev.onceguard.fulfilment;

import dev.onceguard.outbox.OutboxEvent;
import dev.onceguard.outbox.OutboxHandler;
import dev.onceguard.checkout.OrderSettlement;
import jakarta.enterprise.context.ApplicationScoped;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A test-only handler of ORDER_PAID that fails once for an armed order. Each handler commits on its own and the relay
 * runs all of them before it finishes the event, so an armed failure leaves the license committed and the event not
 * DONE: the crash window of scenario 7, through the relay's real code path.
 */
@ApplicationScoped
public class FaultAfterEffects implements OutboxHandler {

    private final Set<String> armed = ConcurrentHashMap.newKeySet();

    void failOnceFor(String orderId) {
        armed.add(orderId);
    }

    @Override
    public Set<String> eventTypes() {
        return Set.of(OrderSettlement.ORDER_PAID);
    }

    @Override
    public String effect() {
        return "test_fault";
    }

    @Override
    public Result handle(OutboxEvent event) {
        if (armed.remove(event.aggregateId())) {
            throw new IllegalStateException("injected fault after the effects of " + event.aggregateId());
        }
        return Result.NOT_NEEDED;
    }
}
