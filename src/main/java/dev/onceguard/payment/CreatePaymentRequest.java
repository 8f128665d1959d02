package dev.onceguard.payment;

import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.Size;

/** Body of {@code POST /api/orders/{orderId}/payments}. */
public record CreatePaymentRequest(@NotBlank @Size(max = 255) String paymentMethodToken) {

    @Override
    public String toString() {
        return "CreatePaymentRequest[paymentMethodToken=<redacted>]";
    }
}
