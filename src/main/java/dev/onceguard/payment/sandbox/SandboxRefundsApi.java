package dev.onceguard.payment.sandbox;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import io.quarkus.runtime.annotations.RegisterForReflection;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;

import java.util.List;
import java.util.Map;

/** The sandbox provider's refund API as the service calls it. */
@Path("/refunds")
@Produces(MediaType.APPLICATION_JSON)
@Consumes(MediaType.APPLICATION_JSON)
public interface SandboxRefundsApi extends AutoCloseable {

    @RegisterForReflection
    record CreateBody(String payment, String amount, String currency, Map<String, String> metadata) {
    }

    @RegisterForReflection
    @JsonIgnoreProperties(ignoreUnknown = true)
    record RefundBody(String id, String payment, String status, String amount, String currency,
                      Map<String, String> metadata) {
    }

    @RegisterForReflection
    @JsonIgnoreProperties(ignoreUnknown = true)
    record RefundList(List<RefundBody> data, boolean hasMore) {
    }

    @POST
    RefundBody create(@HeaderParam("Idempotency-Key") String idempotencyKey, CreateBody body);

    @GET
    RefundList ofPayment(@QueryParam("payment") String providerPaymentId);

    @Override
    void close();
}
