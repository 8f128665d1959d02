package dev.onceguard.payment.refund;

import dev.onceguard.idempotency.IdempotencyKey;
import dev.onceguard.idempotency.IdempotencyService;
import dev.onceguard.idempotency.IdempotentResponse;
import dev.onceguard.platform.Caller;
import dev.onceguard.platform.LogContext;
import dev.onceguard.platform.Problem;
import dev.onceguard.platform.ProblemException;
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

import java.util.Map;
import java.util.function.UnaryOperator;

/**
 * {@code POST /api/payments/{paymentId}/refunds}: only a token whose {@code groups} claim holds {@value #GROUP} may
 * refund, any user's payment; any other token is refused before anything is read or stored.
 */
@RegisterForReflection
@Path("/api/payments/{paymentId}/refunds")
@Authenticated
@Produces(MediaType.APPLICATION_JSON)
public class RefundResource {

    /** The group of back-office systems that may refund. */
    public static final String GROUP = "refunds";

    private final IdempotencyService idempotency;
    private final RefundService refunds;
    private final Caller caller;

    public RefundResource(IdempotencyService idempotency, RefundService refunds, Caller caller) {
        this.idempotency = idempotency;
        this.refunds = refunds;
        this.caller = caller;
    }

    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    public Uni<Response> refund(@PathParam("paymentId") String paymentId, @Context HttpServerRequest http,
                                byte[] body) {
        String userId = caller.userId();
        if (!caller.inGroup(GROUP)) {
            throw new ProblemException(Problem.of(403, "FORBIDDEN", "Forbidden",
                    "Refunds need a token of the " + GROUP + " group."));
        }
        LogContext.put(LogContext.PAYMENT_ID, paymentId);
        var request = idempotency.request(RefundService.OPERATION, userId, http.getHeader(IdempotencyKey.HEADER),
                RequestIds.of(http), Map.of("paymentId", paymentId), body,
                CreateRefundRequest.class, UnaryOperator.identity());
        return refunds.refund(request, paymentId, userId).map(IdempotentResponse::toResponse);
    }
}
