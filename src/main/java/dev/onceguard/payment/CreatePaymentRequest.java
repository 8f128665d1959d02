package dev.onceguard.payment;

import io.quarkus.runtime.annotations.RegisterForReflection;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.Size;

/** Body of {@code POST /api/orders/{orderId}/payments}. */
@RegisterForReflection
public record CreatePaymentRequest(@NotBlank @Size(max = 255) String paymentMethodToken) {

    @Override
    public String toString() {
        return "CreatePaymentRequest[paymentMethodToken=<redacted>]";
    }
}
