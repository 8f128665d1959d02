package dev.onceguard.idempotency;

import jakarta.ws.rs.core.Response;

import java.util.Locale;

/** What the engine answers: a stored response (fresh or replayed) or a refusal computed now. */
public record IdempotentResponse(Outcome outcome, StoredResponse stored) {

    public enum Outcome {
        EXECUTED, REPLAYED, CONFLICT, IN_PROGRESS, REJECTED;

        String label() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    static final String REPLAYED_HEADER = "Idempotent-Replayed";

    public Response toResponse() {
        Response.ResponseBuilder builder = Response.status(stored.status()).entity(stored.body());
        stored.headers().forEach(builder::header);
        if (outcome == Outcome.REPLAYED) {
            builder.header(REPLAYED_HEADER, "true");
        }
        return builder.build();
    }
}
