package dev.onceguard.sandbox;

import dev.onceguard.platform.Timestamps;

/** A sandbox payment as the sandbox API shows it. */
public record SandboxPaymentView(String id, String status, String amount, String currency, String orderId, String created) {

    static SandboxPaymentView of(SandboxPayment payment) {
        return new SandboxPaymentView(payment.id(), payment.status().name(),
                payment.amount().setScale(2).toPlainString(), payment.currency(), payment.orderId(),
                Timestamps.format(payment.createdAt()));
    }
}
