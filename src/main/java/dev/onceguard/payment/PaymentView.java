package dev.onceguard.payment;

import dev.onceguard.platform.Timestamps;
import io.quarkus.runtime.annotations.RegisterForReflection;

/** The payment as the API shows it; field order is the byte order of stored responses. */
@RegisterForReflection
public record PaymentView(String paymentId, String orderId, String status, String amount, String currency,
                          String providerPaymentId, String createdAt) {

    public static PaymentView of(Payment payment) {
        return new PaymentView(payment.paymentId, payment.orderId, payment.status.name(),
                payment.amount.setScale(2).toPlainString(), payment.currency, payment.providerPaymentId,
                Timestamps.format(payment.createdAt));
    }
}
