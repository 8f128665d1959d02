package dev.onceguard.payment.refund;

import io.quarkus.runtime.annotations.RegisterForReflection;
import jakarta.validation.constraints.DecimalMin;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
import jakarta.validation.constraints.Size;

import java.math.BigDecimal;

/**
 * Body of {@code POST /api/payments/{paymentId}/refunds}: {@code amount} absent means everything that remains of the
 * payment.
 */
@RegisterForReflection
public record CreateRefundRequest(
        @DecimalMin("0.01") @Pattern(regexp = "\\d{1,12}\\.\\d{2}", message = "must be a positive decimal string with two places")
        String amount,
        @NotNull Refund.Reason reason,
        @Size(max = 500) String note) {

    /** The amount asked for; null for everything that remains. */
    BigDecimal amountOrRemainder() {
        return amount == null ? null : new BigDecimal(amount);
    }
}
