package dev.onceguard.checkout;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import jakarta.validation.constraints.Positive;

import java.time.Duration;

/** How long an order may stay unpaid, and how many units of one product one order may hold. */
@ConfigMapping(prefix = "onceguard.checkout")
public interface CheckoutConfig {

    /**
     * An order AWAITING_PAYMENT this long after it was placed, with no payment attempt in flight, expires and gives its
     * stock back ({@link UnpaidOrderExpiry}).
     */
    @WithDefault("30m")
    Duration unpaidOrderTtl();

    /** The units of one product one order may hold (its lines together), unless the catalog sets the product's own. */
    @WithDefault("100")
    @Positive
    int maxQuantityPerProduct();
}
