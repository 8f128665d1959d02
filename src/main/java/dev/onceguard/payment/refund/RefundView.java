package dev.onceguard.payment.refund;

import dev.onceguard.platform.Timestamps;
import io.quarkus.runtime.annotations.RegisterForReflection;

/** The refund as the API shows it; field order is the byte order of stored responses. */
@RegisterForReflection
public record RefundView(String refundId, String paymentId, String orderId, String amount, String currency,
                         String reason, String status, String createdAt) {

    public static RefundView of(Refund refund) {
        return new RefundView(refund.refundId(), refund.paymentId(), refund.orderId(),
                refund.amount().setScale(2).toPlainString(), refund.currency(), refund.reason().name(),
                refund.status().name(), Timestamps.format(refund.createdAt()));
    }
}
