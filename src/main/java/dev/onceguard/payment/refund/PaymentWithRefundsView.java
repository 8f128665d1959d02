package dev.onceguard.payment.refund;

import dev.onceguard.payment.Payment;
import dev.onceguard.payment.PaymentView;
import io.quarkus.runtime.annotations.RegisterForReflection;

import java.math.BigDecimal;
import java.util.List;

/** {@code GET /api/payments/{paymentId}}: the payment, what its refunds gave back so far, and its refunds. */
@RegisterForReflection
public record PaymentWithRefundsView(String paymentId, String orderId, String status, String amount, String currency,
                                     String providerPaymentId, String createdAt, String refundedAmount,
                                     List<RefundView> refunds) {

    public static PaymentWithRefundsView of(Payment payment, BigDecimal refunded, List<Refund> refunds) {
        PaymentView view = PaymentView.of(payment);
        return new PaymentWithRefundsView(view.paymentId(), view.orderId(), view.status(), view.amount(),
                view.currency(), view.providerPaymentId(), view.createdAt(), refunded.setScale(2).toPlainString(),
                refunds.stream().map(RefundView::of).toList());
    }
}
