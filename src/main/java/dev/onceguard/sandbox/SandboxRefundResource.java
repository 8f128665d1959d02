package dev.onceguard.sandbox;

import dev.onceguard.idempotency.Fingerprint;
import dev.onceguard.idempotency.IdempotencyKey;
import dev.onceguard.platform.JsonRequests;
import io.quarkus.runtime.annotations.RegisterForReflection;
import io.vertx.core.http.HttpServerRequest;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

import java.util.Map;

/**
 * The sandbox provider's refunds: {@code POST /sandbox/v1/refunds} (Idempotency-Key required) and
 * {@code GET /sandbox/v1/refunds?payment=sbx_…}. A repeated create with the same key and body answers {@code 201} with
 * the refund and {@code Idempotent-Replayed: true}, at once; with another body, {@code 422}.
 */
@RegisterForReflection
@Path("/sandbox/v1/refunds")
@Produces(MediaType.APPLICATION_JSON)
public class SandboxRefundResource {

    private final SandboxRefunds refunds;
    private final JsonRequests jsonRequests;
    private final SandboxCaller caller;

    public SandboxRefundResource(SandboxRefunds refunds, JsonRequests jsonRequests, SandboxCaller caller) {
        this.refunds = refunds;
        this.jsonRequests = jsonRequests;
        this.caller = caller;
    }

    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    public Response create(@Context HttpServerRequest http, byte[] body) throws InterruptedException {
        IdempotencyKey key = IdempotencyKey.parse(http.getHeader(IdempotencyKey.HEADER));
        JsonRequests.Parsed<SandboxRefundRequest> parsed = jsonRequests.read(body, SandboxRefundRequest.class);
        SandboxRefunds.Created created = refunds.create(key.value(), Fingerprint.of(Map.of(), parsed.tree()),
                parsed.value());
        if (created.answer() == SandboxToken.Answer.TOO_LATE) {
            Thread.sleep(SandboxToken.tooLate(caller.callTimeout()).toMillis());
        }
        return SandboxResource.created("/sandbox/v1/refunds/" + created.refund().id(), created.refund(),
                created.replayed());
    }

    @GET
    public SandboxResource.Listed<SandboxRefundView> list(@QueryParam("payment") String payment) {
        SandboxResource.Listed.requireFilter("payment", payment);
        return SandboxResource.Listed.of(refunds.ofPayment(payment, SandboxResource.MAX_LIST + 1));
    }
}
