package dev.onceguard.orderdetails;

import dev.onceguard.checkout.OrderRows;
import dev.onceguard.fulfilment.FulfilmentRows;
import dev.onceguard.payment.PaymentRows;
import dev.onceguard.platform.Caller;
import dev.onceguard.platform.LogContext;
import dev.onceguard.platform.Problem;
import dev.onceguard.platform.ProblemException;
import io.quarkus.security.Authenticated;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import io.quarkus.runtime.annotations.RegisterForReflection;

/**
 * {@code GET /api/orders/{orderId}}. The order with its payments and the effects of its payment reads three
 * capabilities, so it lives above all of them rather than in checkout, which payment and fulfilment build on.
 */
@RegisterForReflection
@Path("/api/orders/{orderId}")
@Authenticated
@Produces(MediaType.APPLICATION_JSON)
public class OrderDetailsResource {

    private final OrderRows orders;
    private final Caller caller;
    private final PaymentRows payments;
    private final FulfilmentRows effects;

    public OrderDetailsResource(OrderRows orders, Caller caller, PaymentRows payments, FulfilmentRows effects) {
        this.orders = orders;
        this.caller = caller;
        this.payments = payments;
        this.effects = effects;
    }

    @GET
    public OrderDetailsView get(@PathParam("orderId") String orderId) {
        LogContext.put(LogContext.ORDER_ID, orderId);
        return orders.findOwned(orderId, caller.userId())
                .map(order -> OrderDetailsView.of(order, payments.ofOrder(orderId), effects.viewOf(orderId)))
                .orElseThrow(() -> new ProblemException(Problem.of(404, "ORDER_NOT_FOUND", "Order not found",
                        "You have no order with this id.")));
    }
}
