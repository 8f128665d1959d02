package dev.onceguard.platform;

import io.vertx.core.http.HttpServerRequest;

/**
 * The ids of one HTTP request: the one the service generated for it (unique, what the answer's {@code X-Request-Id}
 * returns and what logs and the request log key on) and, when the client sent a usable {@code X-Request-Id}, the
 * client's own, kept beside it. A client's id is a label the client chose: two users (or one user's two requests)
 * may send the same, so nothing looks a request up by it alone.
 */
public record RequestIds(String id, String clientId) {

    /** The ids {@link RequestLimits} put on the request before any resource reads it. */
    public static RequestIds of(HttpServerRequest request) {
        return new RequestIds(request.getHeader(RequestLimits.REQUEST_ID), request.getHeader(RequestLimits.CLIENT_REQUEST_ID));
    }
}
