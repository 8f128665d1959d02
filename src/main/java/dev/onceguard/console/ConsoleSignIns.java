package dev.onceguard.console;

import io.quarkus.security.spi.runtime.AuthenticationFailureEvent;
import io.quarkus.vertx.http.runtime.filters.Filters;
import io.vertx.core.http.HttpHeaders;
import io.vertx.ext.web.RoutingContext;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import org.jboss.logging.Logger;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Optional;

/**
 * Console sign-ins in the log, at INFO: each form sign-in, as it ended (sent on to the console, or back to the form
 * with the error), and each refused HTTP Basic login, with the user name it named. A password never reaches a line:
 * the form's password field is never read, and only the part of a Basic credential before its colon is. A request
 * that carries a valid session or Basic login is no sign-in and is not logged.
 */
@ApplicationScoped
class ConsoleSignIns {

    private static final Logger LOG = Logger.getLogger(ConsoleSignIns.class);
    private static final String FORM_POST = "/j_security_check";

    void register(@Observes Filters filters) {
        filters.register(this::logFormSignIns, 10_000);
    }

    private void logFormSignIns(RoutingContext rc) {
        if (FORM_POST.equals(rc.normalizedPath())) {
            rc.addEndHandler(ended -> {
                String location = rc.response().headers().get(HttpHeaders.LOCATION);
                String user = printable(rc.request().getFormAttribute("j_username"));
                if (rc.response().getStatusCode() == 302 && location != null && !location.contains("error=true")) {
                    LOG.infof("console sign-in of %s succeeded", user);
                } else {
                    LOG.infof("console sign-in of %s failed", user);
                }
            });
        }
        rc.next();
    }

    void basicLoginRefused(@Observes AuthenticationFailureEvent event) {
        Optional.ofNullable(event.getEventProperties())
                .map(properties -> properties.get(RoutingContext.class.getName()))
                .filter(RoutingContext.class::isInstance).map(RoutingContext.class::cast)
                .filter(rc -> rc.normalizedPath().startsWith("/console"))
                .flatMap(ConsoleSignIns::basicUser)
                .ifPresent(user -> LOG.infof("console sign-in of %s (HTTP Basic) failed", printable(user)));
    }

    private static Optional<String> basicUser(RoutingContext rc) {
        String authorization = rc.request().getHeader(HttpHeaders.AUTHORIZATION);
        if (authorization == null || !authorization.regionMatches(true, 0, "Basic ", 0, 6)) {
            return Optional.empty();
        }
        try {
            String credential = new String(Base64.getDecoder().decode(authorization.substring(6).trim()), StandardCharsets.UTF_8);
            int colon = credential.indexOf(':');
            return colon < 0 ? Optional.empty() : Optional.of(credential.substring(0, colon));
        } catch (IllegalArgumentException notBase64) {
            return Optional.empty();
        }
    }

    /** The user name as typed, quoted, at most 64 characters, control characters replaced: it cannot forge a line. */
    private static String printable(String user) {
        if (user == null) {
            return "(no user name)";
        }
        String shown = user.length() > 64 ? user.substring(0, 64) + "…" : user;
        return "\"" + shown.replaceAll("\\p{Cntrl}", "?") + "\"";
    }
}
