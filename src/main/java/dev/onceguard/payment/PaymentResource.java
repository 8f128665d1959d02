package dev.onceguard.payment;

import dev.onceguard.platform.LogContext;
import dev.onceguard.platform.Caller;
import dev.onceguard.platform.Problem;
import dev.onceguard.platform.ProblemException;
import io.quarkus.security.Authenticated;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import io.quarkus.runtime.annotations.RegisterForReflection;

@RegisterForReflection
@Path("/api/payments")
@Authenticated
@Produces(MediaType.APPLICATION_JSON)
public class PaymentResource {

    private final Caller caller;
    private final PaymentRows rows;

    public PaymentResource(Caller caller, PaymentRows rows) {
        this.caller = caller;
        this.rows = rows;
    }

    @GET
    @Path("/{paymentId}")
    public PaymentView get(@PathParam("paymentId") String paymentId) {
        LogContext.put(LogContext.PAYMENT_ID, paymentId);
        return rows.findOwned(paymentId, caller.userId()).map(PaymentView::of)
                .orElseThrow(() -> new ProblemException(Problem.of(404, "PAYMENT_NOT_FOUND", "Payment not found",
                        "You have no payment with this id.")));
    }
}
