package dev.onceguard.checkout;

import dev.onceguard.platform.Timestamps;
import io.quarkus.runtime.annotations.RegisterForReflection;

import java.math.BigDecimal;
import java.util.List;

/** The order as the API shows it; field order is the byte order of stored responses. */
@RegisterForReflection
public record OrderView(String orderId, String status, List<Item> items, String total, String currency,
                        String createdAt) {

    public record Item(String productId, int quantity, String unitPrice) {
    }

    public static OrderView of(Order order) {
        return new OrderView(order.orderId(), order.status().name(),
                order.items().stream().map(l -> new Item(l.productId(), l.quantity(), money(l.unitPrice()))).toList(),
                money(order.total()), order.currency(), Timestamps.format(order.createdAt()));
    }

    static String money(BigDecimal amount) {
        return amount.setScale(2).toPlainString();
    }
}
