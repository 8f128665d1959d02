package dev.onceguard.orderdetails;

import dev.onceguard.checkout.Order;
import dev.onceguard.checkout.OrderView;
import dev.onceguard.fulfilment.FulfilmentView;
import dev.onceguard.payment.Payment;

import java.util.List;

/** {@code GET /api/orders/{orderId}}: the order with its payment attempts and the effects of its payment. */
public record OrderDetailsView(String orderId, String status, List<OrderView.Item> items, String total, String currency,
                               String createdAt, List<PaymentSummary> payments, FulfilmentView fulfilment) {

    public record PaymentSummary(String paymentId, String status) {
    }

    /** @param payments the order's payment attempts, oldest first */
    public static OrderDetailsView of(Order order, List<Payment> payments, FulfilmentView fulfilment) {
        OrderView view = OrderView.of(order);
        return new OrderDetailsView(view.orderId(), view.status(), view.items(), view.total(), view.currency(),
                view.createdAt(), payments.stream().map(p -> new PaymentSummary(p.paymentId(), p.status().name())).toList(),
                fulfilment);
    }
}
