package dev.onceguard.platform;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.quarkus.vertx.http.runtime.filters.Filters;
import io.vertx.core.http.HttpHeaders;
import io.vertx.ext.web.RoutingContext;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import org.jboss.logging.MDC;

import java.util.regex.Pattern;

/**
 * The first thing every HTTP request meets: it gets a request id (echoed when the client sent a sane one),
 * which goes on the response, into the log context and onto the request for the resources to read; and a body
 * declared larger than the contract's 64 KiB is refused before it is read.
 */
@Singleton
public class RequestLimits {

    public static final String REQUEST_ID = "X-Request-Id";
    public static final int MAX_BODY_BYTES = 64 * 1024;
    private static final Pattern SANE_REQUEST_ID = Pattern.compile("[A-Za-z0-9._:\\-]{1,128}");

    @Inject
    ObjectMapper json;

    @Inject
    Ids ids;

    public static Problem payloadTooLarge() {
        return Problem.of(413, "PAYLOAD_TOO_LARGE", "Payload too large",
                "Request bodies are limited to " + MAX_BODY_BYTES + " bytes.");
    }

    void register(@Observes Filters filters) {
        filters.register(this::handle, 1000);
    }

    private void handle(RoutingContext rc) {
        String requestId = rc.request().getHeader(REQUEST_ID);
        if (requestId == null || !SANE_REQUEST_ID.matcher(requestId).matches()) {
            requestId = ids.timeOrderedUuid();
            rc.request().headers().set(REQUEST_ID, requestId);
        }
        rc.response().putHeader(REQUEST_ID, requestId);
        MDC.put(LogContext.REQUEST_ID, requestId);

        if (declaredLength(rc) > MAX_BODY_BYTES) {
            try {
                rc.response().setStatusCode(413)
                        .putHeader(HttpHeaders.CONTENT_TYPE, Problem.MEDIA_TYPE)
                        .putHeader(HttpHeaders.CONNECTION, "close")
                        .end(json.writeValueAsString(payloadTooLarge()));
            } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
                rc.fail(e);
            }
            return;
        }
        rc.next();
    }

    private static long declaredLength(RoutingContext rc) {
        String length = rc.request().getHeader(HttpHeaders.CONTENT_LENGTH);
        if (length == null) {
            return -1;
        }
        try {
            return Long.parseLong(length.trim());
        } catch (NumberFormatException e) {
            return Long.MAX_VALUE;
        }
    }
}
