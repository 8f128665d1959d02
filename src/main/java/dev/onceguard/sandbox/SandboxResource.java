package dev.onceguard.sandbox;

import dev.onceguard.idempotency.Fingerprint;
import dev.onceguard.idempotency.IdempotencyKey;
import dev.onceguard.platform.JsonRequests;
import dev.onceguard.platform.Problem;
import dev.onceguard.platform.ProblemException;
import io.vertx.core.http.HttpServerRequest;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

import java.net.URI;
import java.util.List;
import java.util.Map;
import io.quarkus.runtime.annotations.RegisterForReflection;

/**
 * The sandbox provider's API. It simulates an external party, so it has no user authentication; while the sandbox
 * is disabled {@link SandboxSwitch} answers 404 before any of this runs.
 *
 * <p>A repeated create with the same Idempotency-Key and the same body answers {@code 201} with the payment as it
 * is now and {@code Idempotent-Replayed: true}, at once (the simulated late or failed answer belongs to the first
 * call only); with another body, {@code 422 IDEMPOTENCY_KEY_REUSED}.
 */
@RegisterForReflection
@Path("/sandbox/v1/payments")
@Produces(MediaType.APPLICATION_JSON)
public class SandboxResource {

    static final int MAX_LIST = 100;
    static final String REPLAYED = "Idempotent-Replayed";

    /** A list answer: at most {@value #MAX_LIST} entries, and whether there are more. */
    public record Listed<T>(List<T> data, boolean hasMore) {

        /** {@code read} with a limit of one more than a list shows. */
        static <T> Listed<T> of(List<T> read) {
            return new Listed<>(read.stream().limit(MAX_LIST).toList(), read.size() > MAX_LIST);
        }

        static void requireFilter(String name, String value) {
            if (value == null || value.isBlank()) {
                throw new ProblemException(Problem.validation(List.of(
                        new Problem.FieldError(name, "the " + name + " query parameter is required"))));
            }
        }
    }

    private final SandboxPayments payments;
    private final SandboxPaymentRows paymentRows;
    private final JsonRequests jsonRequests;
    private final SandboxCaller caller;

    public SandboxResource(SandboxPayments payments, SandboxPaymentRows paymentRows, JsonRequests jsonRequests,
                           SandboxCaller caller) {
        this.payments = payments;
        this.paymentRows = paymentRows;
        this.jsonRequests = jsonRequests;
        this.caller = caller;
    }

    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    public Response create(@Context HttpServerRequest http, byte[] body) throws InterruptedException {
        IdempotencyKey key = IdempotencyKey.parse(IdempotencyKey.single(http.headers().getAll(IdempotencyKey.HEADER)));
        JsonRequests.Parsed<SandboxPaymentRequest> parsed = jsonRequests.read(body, SandboxPaymentRequest.class);
        SandboxToken token = SandboxToken.of(parsed.value().paymentMethodToken())
                .orElseThrow(() -> new ProblemException(Problem.of(400, "UNKNOWN_PAYMENT_METHOD_TOKEN",
                        "Unknown payment method token", "The sandbox accepts these tokens: "
                                + String.join(", ", SandboxToken.wireNames()) + ".")));

        SandboxPayments.Created created = payments.create(key.value(), Fingerprint.of(Map.of(), parsed.tree()),
                parsed.value(), token);
        if (!created.replayed()) {
            switch (token.answer) {
                case TOO_LATE -> Thread.sleep(SandboxToken.tooLate(caller.callTimeout()).toMillis());
                case SERVER_ERROR -> throw new ProblemException(Problem.of(500, "SANDBOX_SIMULATED_ERROR",
                        "Simulated provider error", "The payment was committed; this answer is a simulated failure."));
                case AT_ONCE -> {
                }
            }
        }
        return created("/sandbox/v1/payments/" + created.payment().id(), SandboxPaymentView.of(created.payment()),
                created.replayed());
    }

    /** A create's 201, marked {@link #REPLAYED} when it answers an earlier create with the same key. */
    static Response created(String location, Object entity, boolean replayed) {
        Response.ResponseBuilder response = Response.created(URI.create(location)).entity(entity);
        if (replayed) {
            response.header(REPLAYED, "true");
        }
        return response.build();
    }

    @GET
    @Path("/{id}")
    public SandboxPaymentView get(@PathParam("id") String id) {
        return SandboxPaymentView.of(paymentRows.require(id));
    }

    @GET
    public Listed<SandboxPaymentView> list(@QueryParam("orderId") String orderId) {
        Listed.requireFilter("orderId", orderId);
        return Listed.of(paymentRows.ofOrder(orderId, MAX_LIST + 1).stream().map(SandboxPaymentView::of).toList());
    }
}
