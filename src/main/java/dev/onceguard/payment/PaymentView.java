package dev.onceguard.payment;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.JsonNode;
import dev.onceguard.payment.provider.CustomerAction;
import dev.onceguard.platform.Timestamps;
import io.quarkus.runtime.annotations.RegisterForReflection;

/**
 * The payment as the API shows it; field order is the byte order of stored responses. {@code clientSecret} and
 * {@code nextAction} (Stripe's 3-D Secure) or {@code confirmationUrl} (YooKassa's redirect confirmation) appear only in
 * the 202 of a payment that waits for the customer (REQUIRES_ACTION), which is never stored.
 */
@RegisterForReflection
public record PaymentView(String paymentId, String orderId, String status, String amount, String currency,
                          String providerPaymentId, String createdAt,
                          @JsonInclude(JsonInclude.Include.NON_NULL) String clientSecret,
                          @JsonInclude(JsonInclude.Include.NON_NULL) JsonNode nextAction,
                          @JsonInclude(JsonInclude.Include.NON_NULL) String confirmationUrl) {

    public static PaymentView of(Payment payment) {
        return new PaymentView(payment.paymentId(), payment.orderId(), payment.status().name(),
                payment.amount().setScale(2).toPlainString(), payment.currency(), payment.providerPaymentId(),
                Timestamps.format(payment.createdAt()), null, null, null);
    }

    static PaymentView waitingForCustomer(Payment payment, CustomerAction action) {
        PaymentView view = of(payment);
        return new PaymentView(view.paymentId, view.orderId, view.status, view.amount, view.currency,
                view.providerPaymentId, view.createdAt, action.clientSecret(), action.nextAction(),
                action.confirmationUrl());
    }
}
