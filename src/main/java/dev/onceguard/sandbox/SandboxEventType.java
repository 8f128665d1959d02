package dev.onceguard.sandbox;

import java.util.Arrays;

/**
 * The events the sandbox sends, with the payment's (or, for a refund event, the refund's) status each announces in
 * {@code data.object.status}. An event that
 * announces a final state also settles a sandbox payment that is still PENDING when it falls due.
 */
enum SandboxEventType {

    SUCCEEDED("payment.succeeded", "SUCCEEDED", SandboxPayment.Status.SUCCEEDED),
    PENDING("payment.pending", "PENDING", null),
    CANCELED("payment.canceled", "CANCELED", SandboxPayment.Status.FAILED),
    REFUND_SUCCEEDED("refund.succeeded", "SUCCEEDED", null),
    REFUND_FAILED("refund.failed", "FAILED", null);

    final String wireName;
    final String objectStatus;
    /** The status a PENDING payment reaches when this event falls due; null when it reaches none. */
    final SandboxPayment.Status settles;

    SandboxEventType(String wireName, String objectStatus, SandboxPayment.Status settles) {
        this.wireName = wireName;
        this.objectStatus = objectStatus;
        this.settles = settles;
    }

    static SandboxEventType of(String wireName) {
        return Arrays.stream(values()).filter(t -> t.wireName.equals(wireName)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("unknown sandbox event type " + wireName));
    }
}
