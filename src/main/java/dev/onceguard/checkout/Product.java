package dev.onceguard.checkout;

import java.math.BigDecimal;

/**
 * A catalog entry. {@code stock} is what is left to sell, or null for unlimited goods. Read and written only through
 * {@link CatalogRows}.
 */
public record Product(String productId, String name, Kind kind, BigDecimal price, String currency, Integer stock) {

    public enum Kind { DIGITAL, PHYSICAL }
}
