package dev.onceguard.payment;

import dev.onceguard.platform.LogContext;
import dev.onceguard.idempotency.IdempotencyKey;
import dev.onceguard.idempotency.IdempotencyService;
import dev.onceguard.idempotency.IdempotentResponse;
import dev.onceguard.platform.Caller;
import dev.onceguard.platform.RequestIds;
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

import java.util.Map;
import io.quarkus.runtime.annotations.RegisterForReflection;

/**
 * {@code POST /api/orders/{orderId}/payments}. A root resource of its own: JAX-RS picks the root class by the longest
 * matching path, so under {@code /api/orders} this method would never be reached.
 */
@RegisterForReflection
@Path("/api/orders/{orderId}/payments")
@Authenticated
@Produces(MediaType.APPLICATION_JSON)
public class OrderPaymentsResource {

    private final IdempotencyService idempotency;
    private final PaymentService payments;
    private final Caller caller;

    public OrderPaymentsResource(IdempotencyService idempotency, PaymentService payments, Caller caller) {
        this.idempotency = idempotency;
        this.payments = payments;
        this.caller = caller;
    }

    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    public Uni<Response> pay(@PathParam("orderId") String orderId, @Context HttpServerRequest http, byte[] body) {
        LogContext.put(LogContext.ORDER_ID, orderId);
        var request = idempotency.request(PaymentService.OPERATION, caller.userId(),
                IdempotencyKey.single(http.headers().getAll(IdempotencyKey.HEADER)), RequestIds.of(http), Map.of("orderId", orderId), body, CreatePaymentRequest.class,
                CreatePaymentRequest::forStorage);
        return payments.pay(request, orderId).map(IdempotentResponse::toResponse);
    }
}
