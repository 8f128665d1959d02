package dev.onceguard.checkout;

import io.quarkus.runtime.annotations.RegisterForReflection;

/** Body of {@code POST /api/orders/{orderId}/cancellation}: an empty object (or no body); any field is unknown. */
@RegisterForReflection
public record CancelOrderRequest() {
}
