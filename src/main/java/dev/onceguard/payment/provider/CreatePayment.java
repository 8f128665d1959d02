package dev.onceguard.payment.provider;

import java.math.BigDecimal;

/** One payment to create at the provider, with the key that makes the call safe to repeat. */
public record CreatePayment(String idempotencyKey, BigDecimal amount, String currency, String paymentMethodToken,
                            String orderId, String paymentId) {

    @Override
    public String toString() {
        return "CreatePayment[idempotencyKey=" + idempotencyKey + ", amount=" + amount + ", currency=" + currency
                + ", orderId=" + orderId + ", paymentId=" + paymentId + "]";
    }
}
