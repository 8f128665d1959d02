package dev.onceguard.checkout;

import dev.onceguard.idempotency.IdempotencyKey;
import dev.onceguard.idempotency.IdempotencyService;
import dev.onceguard.idempotency.IdempotentResponse;
import dev.onceguard.platform.Caller;
import dev.onceguard.platform.LogContext;
import dev.onceguard.platform.RequestIds;
import io.quarkus.runtime.annotations.RegisterForReflection;
import io.quarkus.security.Authenticated;
import io.smallrye.mutiny.Uni;
import io.vertx.core.http.HttpServerRequest;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.function.UnaryOperator;

/**
 * {@code POST /api/orders/{orderId}/cancellation} by the order's owner. A root resource of its own, like the payments
 * of an order: under {@code /api/orders} this method would never be reached. Its body is an empty JSON object (an
 * empty body is read as one).
 */
@RegisterForReflection
@Path("/api/orders/{orderId}/cancellation")
@Authenticated
@Produces(MediaType.APPLICATION_JSON)
public class OrderCancellationResource {

    private static final byte[] EMPTY_OBJECT = "{}".getBytes(StandardCharsets.UTF_8);

    private final IdempotencyService idempotency;
    private final OrderCancellation cancellation;
    private final Caller caller;

    public OrderCancellationResource(IdempotencyService idempotency, OrderCancellation cancellation, Caller caller) {
        this.idempotency = idempotency;
        this.cancellation = cancellation;
        this.caller = caller;
    }

    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    public Uni<Response> cancel(@PathParam("orderId") String orderId, @Context HttpServerRequest http, byte[] body) {
        LogContext.put(LogContext.ORDER_ID, orderId);
        var request = idempotency.request(OrderCancellation.OPERATION, caller.userId(),
                http.getHeader(IdempotencyKey.HEADER), RequestIds.of(http),
                Map.of("orderId", orderId), body == null || body.length == 0 ? EMPTY_OBJECT : body,
                CancelOrderRequest.class, UnaryOperator.identity());
        return cancellation.cancel(request, orderId).map(IdempotentResponse::toResponse);
    }
}
