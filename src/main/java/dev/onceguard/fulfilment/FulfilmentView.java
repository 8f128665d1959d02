package dev.onceguard.fulfilment;

import java.util.List;

/** The effects a paid order has produced so far, as {@code GET /api/orders/{orderId}} shows them. */
public record FulfilmentView(List<LicenseRef> licenses, long notifications, long loyaltyPoints) {

    public record LicenseRef(String licenseId) {
    }
}
