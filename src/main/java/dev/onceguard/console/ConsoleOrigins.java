package dev.onceguard.console;

import io.quarkus.vertx.http.runtime.filters.Filters;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.net.HostAndPort;
import io.vertx.ext.web.RoutingContext;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import org.jboss.logging.Logger;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.Locale;
import java.util.Set;

/**
 * A console action or sign-in sent by a page of another origin is refused (403) before authentication, before its
 * body is read and before anything runs. A browser names the page that sent a request in {@code Origin} (and says in
 * {@code Sec-Fetch-Site} whether it was this origin): a foreign origin, including another port of the same host, or
 * {@code Sec-Fetch-Site: cross-site}/{@code same-site} is refused. A script (curl, with HTTP Basic) sends neither
 * and still needs the CSRF token of a console page to act.
 */
@ApplicationScoped
class ConsoleOrigins {

    static final String FORM_POST = "/j_security_check";
    private static final Logger LOG = Logger.getLogger(ConsoleOrigins.class);
    private static final Set<HttpMethod> SAFE = Set.of(HttpMethod.GET, HttpMethod.HEAD, HttpMethod.OPTIONS);
    private static final Set<String> FOREIGN_FETCH_SITES = Set.of("cross-site", "same-site");

    void register(@Observes Filters filters) {
        filters.register(this::refuseForeignOrigins, 9_000);
    }

    private void refuseForeignOrigins(RoutingContext rc) {
        if (SAFE.contains(rc.request().method()) || !guarded(rc.normalizedPath())) {
            rc.next();
            return;
        }
        String origin = rc.request().getHeader(HttpHeaders.ORIGIN);
        String fetchSite = rc.request().getHeader("Sec-Fetch-Site");
        if ((fetchSite != null && FOREIGN_FETCH_SITES.contains(fetchSite.trim().toLowerCase(Locale.ROOT)))
                || (origin != null && !sameOrigin(origin, rc))) {
            LOG.infof("console %s %s from another origin refused", rc.request().method(), rc.normalizedPath());
            rc.response().setStatusCode(403).putHeader(HttpHeaders.CONTENT_TYPE, "text/plain; charset=UTF-8")
                    .end("A console form is accepted from the console's own pages only.\n");
            return;
        }
        rc.next();
    }

    static boolean guarded(String path) {
        return path.equals("/console") || path.startsWith("/console/") || path.equals(FORM_POST);
    }

    /**
     * Whether {@code origin} is the host and port this request was sent to (as the trusted proxy says, when there is
     * one). A host named without a port (behind a proxy on 80 or 443) matches the origin's default port.
     */
    private static boolean sameOrigin(String origin, RoutingContext rc) {
        HostAndPort authority = rc.request().authority();
        if (authority == null) {
            return false;
        }
        try {
            URI uri = new URI(origin.trim());
            String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
            if (uri.getHost() == null || !(scheme.equals("http") || scheme.equals("https"))) {
                return false;
            }
            int originPort = uri.getPort() >= 0 ? uri.getPort() : (scheme.equals("https") ? 443 : 80);
            boolean portMatches = authority.port() >= 0 ? authority.port() == originPort
                    : originPort == 80 || originPort == 443;
            return uri.getHost().equalsIgnoreCase(authority.host()) && portMatches;
        } catch (URISyntaxException notAnOrigin) {
            return false;
        }
    }
}
