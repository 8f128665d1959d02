package dev.onceguard.checkout;

import java.math.BigDecimal;
import java.time.Instant;
import java.util.List;

/** An order as stored: its lines in line order. Read and written only through {@link OrderRows}. */
public record Order(String orderId, String userId, Status status, BigDecimal total, String currency, Instant createdAt,
                    List<Line> items) {

    public enum Status { AWAITING_PAYMENT, PAID, FULFILLED, CANCELED, EXPIRED, REFUNDED }

    public record Line(String productId, int quantity, BigDecimal unitPrice) {
    }
}
