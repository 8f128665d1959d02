package dev.onceguard.platform;

import io.quarkus.vertx.http.runtime.filters.Filters;
import io.vertx.core.http.HttpHeaders;
import io.vertx.ext.web.RoutingContext;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Singleton;

/**
 * A request whose path holds a character no route of the service uses raw ({@code ;} of a path parameter, {@code ,},
 * {@code "}, {@code \}, a control or non-ASCII byte) is answered 400 at once, before anything else sees it. Such a
 * path once reached the console's login challenge, which keeps the path it was asked for in a cookie: the cookie
 * could not hold it, the answer was never sent and the connection stayed open, with a stack trace per request in the
 * log. No line is logged here: an odd path is the client's mistake (or a scanner's), and the answer says it.
 */
@Singleton
public class OddPaths {

    /** The first filter of all, before the request id and the body limit. */
    private static final int FIRST = 100_000;

    void register(@Observes Filters filters) {
        filters.register(this::refuseOddPaths, FIRST);
    }

    private void refuseOddPaths(RoutingContext rc) {
        String path = rc.request().path();
        if (path != null && !odd(path)) {
            rc.next();
            return;
        }
        rc.response().setStatusCode(400).putHeader(HttpHeaders.CONTENT_TYPE, "text/plain; charset=UTF-8")
                .end("The path holds a character that no address of this service uses, such as ; or a comma.\n");
    }

    static boolean odd(String path) {
        return path.chars().anyMatch(c -> c <= 0x20 || c >= 0x7f || c == ';' || c == ',' || c == '"' || c == '\\');
    }
}
