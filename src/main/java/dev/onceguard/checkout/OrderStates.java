package dev.onceguard.checkout;

import dev.onceguard.platform.StateMachine;

import java.util.Map;
import java.util.Set;

import static dev.onceguard.checkout.Order.Status.AWAITING_PAYMENT;
import static dev.onceguard.checkout.Order.Status.CANCELED;
import static dev.onceguard.checkout.Order.Status.EXPIRED;
import static dev.onceguard.checkout.Order.Status.FULFILLED;
import static dev.onceguard.checkout.Order.Status.PAID;
import static dev.onceguard.checkout.Order.Status.REFUNDED;

/**
 * {@code AWAITING_PAYMENT → PAID → FULFILLED}, {@code AWAITING_PAYMENT → CANCELED} (by its owner), {@code AWAITING_PAYMENT
 * → EXPIRED} (unpaid past its time, {@link UnpaidOrderExpiry}) and {@code PAID | FULFILLED → REFUNDED} (refunded in
 * full); nothing goes back.
 */
public final class OrderStates {

    public static final StateMachine<Order.Status> MACHINE = new StateMachine<>("order", "orders", "order_id",
            Order.Status.class, Map.of(
                    AWAITING_PAYMENT, Set.of(PAID, CANCELED, EXPIRED),
                    PAID, Set.of(FULFILLED, REFUNDED),
                    FULFILLED, Set.of(REFUNDED),
                    CANCELED, Set.of(),
                    EXPIRED, Set.of(),
                    REFUNDED, Set.of()));

    private OrderStates() {
    }
}
