package dev.onceguard.platform;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.quarkus.vertx.http.runtime.filters.Filters;
import io.vertx.core.http.HttpClosedException;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpVersion;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import org.jboss.logging.Logger;
import org.jboss.logging.MDC;

import java.util.List;
import java.util.regex.Pattern;

/**
 * The first thing every HTTP request meets: it gets a request id of the service's own, which goes on the response,
 * into the log context and onto the request for the resources to read (see {@link RequestIds}); a client's
 * {@code X-Request-Id} is kept beside it as the client's id when it is 1 to 128 printable ASCII characters without
 * spaces, and ignored otherwise (a label for tracing never fails a request); and a body declared larger than the
 * contract's 64 KiB is refused before it is read.
 *
 * <p>Then the body of a POST to the API or a webhook is read whole here, on the event loop, before the request goes
 * on to its resource on a worker thread. Left to the resource, the worker would wait for the event loop to hand it
 * the body, a second hand-over between threads in every request (measured in docs/benchmarks.md). A body sent
 * without a declared length is refused the same way once it passes 64 KiB.
 */
@Singleton
public class RequestLimits {

    private static final Logger LOG = Logger.getLogger(RequestLimits.class);
    public static final String REQUEST_ID = "X-Request-Id";
    /**
     * The client's own request id: set on the request for the resources (whatever a client sent under this name is
     * dropped first) and echoed on the answer.
     */
    public static final String CLIENT_REQUEST_ID = "X-Client-Request-Id";
    public static final int MAX_BODY_BYTES = 64 * 1024;
    private static final Pattern USABLE_CLIENT_REQUEST_ID = Pattern.compile("[\\x21-\\x7E]{1,128}");

    @Inject
    ObjectMapper json;

    @Inject
    Ids ids;

    /** Where a POST's body is read before its resource runs: the API and the webhooks, whose resources take bytes. */
    private static final List<String> BODY_READ_FIRST = List.of("/api/*", "/webhooks/*");
    /** Right after this class's request filter (its priority 1000 is route order -1000), before authentication. */
    private static final int READ_BODY_ORDER = -999;

    private final BodyHandler wholeBody = BodyHandler.create(false).setBodyLimit(MAX_BODY_BYTES);

    public static Problem payloadTooLarge() {
        return Problem.of(413, "PAYLOAD_TOO_LARGE", "Payload too large",
                "Request bodies are limited to " + MAX_BODY_BYTES + " bytes.");
    }

    void register(@Observes Filters filters) {
        filters.register(this::handle, 1000);
    }

    void readBodiesFirst(@Observes Router router) {
        for (String path : BODY_READ_FIRST) {
            router.route(HttpMethod.POST, path).order(READ_BODY_ORDER).handler(this::readBodyFirst)
                    .failureHandler(this::bodyReadFailed);
        }
    }

    /**
     * HTTP/2 requests and declared-empty bodies are left to the resource's own reading: Quarkus REST pauses every
     * request it takes, which HTTP/2 refuses for a request already read to its end, and the body handler never
     * passes on an HTTP/1.1 request that declared a length of 0.
     */
    private void readBodyFirst(RoutingContext rc) {
        if (rc.request().version() == HttpVersion.HTTP_2 || declaredLength(rc) == 0) {
            rc.next();
        } else {
            wholeBody.handle(rc);
        }
    }

    /**
     * The body handler fails the request with 413 past its limit, and with {@link HttpClosedException} when the client
     * hung up before its body arrived: nobody is left to answer, and a hang-up is the client's doing, so it is no
     * server error to log (the request metrics count it as a reset). Any other failure is not this route's to answer.
     */
    private void bodyReadFailed(RoutingContext rc) {
        if (rc.statusCode() == 413 && !rc.response().headWritten()) {
            refuseTooLarge(rc);
        } else if (rc.failure() instanceof HttpClosedException) {
            LOG.debugf("client hung up before its %s body arrived", rc.request().path());
        } else {
            rc.next();
        }
    }

    private void handle(RoutingContext rc) {
        String clientRequestId = rc.request().getHeader(REQUEST_ID);
        rc.request().headers().remove(CLIENT_REQUEST_ID);
        if (clientRequestId != null && USABLE_CLIENT_REQUEST_ID.matcher(clientRequestId).matches()) {
            rc.request().headers().set(CLIENT_REQUEST_ID, clientRequestId);
            rc.response().putHeader(CLIENT_REQUEST_ID, clientRequestId);
            MDC.put(LogContext.CLIENT_REQUEST_ID, clientRequestId);
        } else {
            MDC.remove(LogContext.CLIENT_REQUEST_ID);
        }
        String requestId = ids.timeOrderedUuid();
        rc.request().headers().set(REQUEST_ID, requestId);
        rc.response().putHeader(REQUEST_ID, requestId);
        MDC.put(LogContext.REQUEST_ID, requestId);

        if (declaredLength(rc) > MAX_BODY_BYTES) {
            refuseTooLarge(rc);
            return;
        }
        rc.next();
    }

    private void refuseTooLarge(RoutingContext rc) {
        try {
            rc.response().setStatusCode(413)
                    .putHeader(HttpHeaders.CONTENT_TYPE, Problem.MEDIA_TYPE)
                    .putHeader(HttpHeaders.CONNECTION, "close")
                    .end(json.writeValueAsString(payloadTooLarge()));
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            rc.fail(e);
        }
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
