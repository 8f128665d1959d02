package dev.onceguard.payment.sandbox;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import io.quarkus.runtime.annotations.RegisterForReflection;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;

import java.util.List;
import java.util.Map;

/** The sandbox provider's HTTP API (payments and refunds) as the service calls it, like any external provider's. */
@Produces(MediaType.APPLICATION_JSON)
@Consumes(MediaType.APPLICATION_JSON)
public interface SandboxApi extends AutoCloseable {

    @RegisterForReflection
    record CreateBody(String amount, String currency, String paymentMethodToken, Map<String, String> metadata) {

        @Override
        public String toString() {
            return "CreateBody[amount=" + amount + ", currency=" + currency + ", paymentMethodToken=<redacted>]";
        }
    }

    @RegisterForReflection
    @JsonIgnoreProperties(ignoreUnknown = true)
    record PaymentBody(String id, String status, String amount, String currency, String orderId, String created) {
    }

    @RegisterForReflection
    record CreateRefundBody(String payment, String amount, String currency, Map<String, String> metadata) {
    }

    @RegisterForReflection
    @JsonIgnoreProperties(ignoreUnknown = true)
    record RefundBody(String id, String payment, String status, String amount, String currency,
                      Map<String, String> metadata) {
    }

    /** A list answer (payments or refunds): at most a page of entries, and whether there are more. */
    @RegisterForReflection
    @JsonIgnoreProperties(ignoreUnknown = true)
    record Listed<T>(List<T> data, boolean hasMore) {
    }

    @POST
    @Path("/payments")
    PaymentBody create(@HeaderParam("Idempotency-Key") String idempotencyKey, CreateBody body);

    @GET
    @Path("/payments/{id}")
    PaymentBody get(@PathParam("id") String id);

    @GET
    @Path("/payments")
    Listed<PaymentBody> ofOrder(@QueryParam("orderId") String orderId);

    @POST
    @Path("/refunds")
    RefundBody refund(@HeaderParam("Idempotency-Key") String idempotencyKey, CreateRefundBody body);

    @GET
    @Path("/refunds")
    Listed<RefundBody> refundsOf(@QueryParam("payment") String providerPaymentId);

    @Override
    void close();
}
