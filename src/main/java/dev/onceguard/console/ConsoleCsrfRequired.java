package dev.onceguard.console;

import io.vertx.ext.web.RoutingContext;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import org.jboss.resteasy.reactive.server.ServerRequestFilter;

import java.util.Set;

/**
 * Every console POST is a form, so that the CSRF extension verifies its token. The extension verifies the token of a
 * form, but lets a POST with no body, no Content-Type or a {@code text/plain} one through unchecked, which is what a
 * page on another origin can send with the operator's cookies. Here a console POST that is not exactly
 * {@code application/x-www-form-urlencoded} is refused with the extension's own answer to a missing token (400),
 * before the action; a form without a valid token is the extension's to refuse.
 */
class ConsoleCsrfRequired {

    private static final Set<String> SAFE = Set.of("GET", "HEAD", "OPTIONS");

    @ServerRequestFilter(priority = Priorities.AUTHENTICATION)
    Response requireAForm(ContainerRequestContext request, RoutingContext rc) {
        if (SAFE.contains(request.getMethod()) || !ConsoleOrigins.guarded(rc.normalizedPath())
                || isForm(request.getMediaType())) {
            return null;
        }
        return Response.status(400).type(MediaType.TEXT_PLAIN_TYPE)
                .entity("A console form is accepted with the CSRF token of a console page only.\n").build();
    }

    private static boolean isForm(MediaType type) {
        return type != null && "application".equalsIgnoreCase(type.getType())
                && "x-www-form-urlencoded".equalsIgnoreCase(type.getSubtype());
    }
}
