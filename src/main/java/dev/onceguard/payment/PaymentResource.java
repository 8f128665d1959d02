package dev.onceguard.payment;

import dev.onceguard.platform.LogContext;
import dev.onceguard.payment.refund.PaymentWithRefundsView;
import dev.onceguard.payment.refund.RefundResource;
import dev.onceguard.payment.refund.RefundRows;
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

import java.util.Optional;

@RegisterForReflection
@Path("/api/payments")
@Authenticated
@Produces(MediaType.APPLICATION_JSON)
public class PaymentResource {

    private final Caller caller;
    private final PaymentRows rows;
    private final RefundRows refunds;

    public PaymentResource(Caller caller, PaymentRows rows, RefundRows refunds) {
        this.caller = caller;
        this.rows = rows;
        this.refunds = refunds;
    }

    @GET
    @Path("/{paymentId}")
    public PaymentWithRefundsView get(@PathParam("paymentId") String paymentId) {
        LogContext.put(LogContext.PAYMENT_ID, paymentId);
        String userId = caller.userId();
        Optional<Payment> payment = caller.inGroup(RefundResource.GROUP) ? rows.find(paymentId)
                : rows.findOwned(paymentId, userId);
        return payment.map(p -> PaymentWithRefundsView.of(p, refunds.refundedOf(paymentId), refunds.ofPayment(paymentId)))
                .orElseThrow(() -> new ProblemException(Problem.of(404, "PAYMENT_NOT_FOUND", "Payment not found",
                        "You have no payment with this id.")));
    }
}
