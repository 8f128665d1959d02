package dev.onceguard.payment;

import dev.onceguard.platform.StateMachine;

import java.util.Map;
import java.util.Set;

import static dev.onceguard.payment.Payment.Status.CANCELED;
import static dev.onceguard.payment.Payment.Status.CREATED;
import static dev.onceguard.payment.Payment.Status.FAILED;
import static dev.onceguard.payment.Payment.Status.PENDING;
import static dev.onceguard.payment.Payment.Status.REQUIRES_ACTION;
import static dev.onceguard.payment.Payment.Status.SUCCEEDED;
import static dev.onceguard.payment.Payment.Status.UNKNOWN;

/**
 * {@code CREATED → PENDING → SUCCEEDED | FAILED | CANCELED}; {@code REQUIRES_ACTION} (a 3-D Secure challenge or a
 * redirect confirmation the customer has to pass) between CREATED and PENDING or a final state; {@code UNKNOWN} is
 * reachable from CREATED, PENDING and REQUIRES_ACTION and is left for a final state, or for REQUIRES_ACTION when the
 * repeated create finds the payment waiting for the customer, who has not been told where to confirm it yet. Final
 * states never change.
 */
public final class PaymentStates {

    public static final StateMachine<Payment.Status> MACHINE = new StateMachine<>("payment", "payments", "payment_id",
            Payment.Status.class, Map.of(
                    CREATED, Set.of(PENDING, REQUIRES_ACTION, SUCCEEDED, FAILED, CANCELED, UNKNOWN),
                    REQUIRES_ACTION, Set.of(PENDING, SUCCEEDED, FAILED, CANCELED, UNKNOWN),
                    PENDING, Set.of(SUCCEEDED, FAILED, CANCELED, UNKNOWN),
                    UNKNOWN, Set.of(REQUIRES_ACTION, SUCCEEDED, FAILED, CANCELED),
                    SUCCEEDED, Set.of(),
                    FAILED, Set.of(),
                    CANCELED, Set.of()));

    /**
     * Whether the provider's word on the attempt is still awaited: the call was not made or not answered
     * (CREATED, UNKNOWN), or the customer's challenge is still open (REQUIRES_ACTION).
     */
    static boolean waitsForProvider(Payment.Status status) {
        return status == CREATED || status == UNKNOWN || status == REQUIRES_ACTION;
    }

    private PaymentStates() {
    }
}
