package dev.onceguard.payment;

import dev.onceguard.idempotency.IdempotencyKey;
import dev.onceguard.idempotency.IdempotencyService;
import dev.onceguard.idempotency.Operation;
import dev.onceguard.platform.Caller;
import dev.onceguard.platform.Problem;
import dev.onceguard.platform.ProblemException;
import dev.onceguard.platform.RequestLimits;
import io.quarkus.security.Authenticated;
import io.vertx.core.http.HttpServerRequest;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

import java.util.Map;

@Path("/api")
@Authenticated
@Produces(MediaType.APPLICATION_JSON)
public class PaymentResource {

    private final IdempotencyService idempotency;
    private final PaymentService payments;
    private final Caller caller;

    public PaymentResource(IdempotencyService idempotency, PaymentService payments, Caller caller) {
        this.idempotency = idempotency;
        this.payments = payments;
        this.caller = caller;
    }

    @POST
    @Path("/orders/{orderId}/payments")
    @Consumes(MediaType.APPLICATION_JSON)
    public Response pay(@PathParam("orderId") String orderId, @Context HttpServerRequest http, byte[] body) {
        var request = idempotency.request(Operation.CREATE_PAYMENT, caller.userId(), http.getHeader(IdempotencyKey.HEADER),
                http.getHeader(RequestLimits.REQUEST_ID), Map.of("orderId", orderId), body, CreatePaymentRequest.class);
        return payments.pay(request, orderId).toResponse();
    }

    @GET
    @Path("/payments/{paymentId}")
    public PaymentView get(@PathParam("paymentId") String paymentId) {
        return Payment.findOwned(paymentId, caller.userId()).map(PaymentView::of)
                .orElseThrow(() -> new ProblemException(Problem.of(404, "PAYMENT_NOT_FOUND", "Payment not found",
                        "You have no payment with this id.")));
    }
}
