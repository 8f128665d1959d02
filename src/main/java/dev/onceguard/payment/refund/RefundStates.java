package dev.onceguard.payment.refund;

import dev.onceguard.platform.StateMachine;

import java.util.Map;
import java.util.Set;

import static dev.onceguard.payment.refund.Refund.Status.FAILED;
import static dev.onceguard.payment.refund.Refund.Status.PENDING;
import static dev.onceguard.payment.refund.Refund.Status.SUCCEEDED;
import static dev.onceguard.payment.refund.Refund.Status.UNKNOWN;

/**
 * {@code PENDING → SUCCEEDED | FAILED}; {@code UNKNOWN} while the provider's answer is not known, left for the answer
 * once it is (PENDING when the provider is still working on it). Final states never change.
 */
public final class RefundStates {

    public static final StateMachine<Refund.Status> MACHINE = new StateMachine<>("refund", "refunds", "refund_id",
            Refund.Status.class, Map.of(
                    PENDING, Set.of(SUCCEEDED, FAILED, UNKNOWN),
                    UNKNOWN, Set.of(PENDING, SUCCEEDED, FAILED),
                    SUCCEEDED, Set.of(),
                    FAILED, Set.of()));

    private RefundStates() {
    }
}
