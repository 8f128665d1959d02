package dev.onceguard.console;

import io.quarkus.security.spi.runtime.AuthenticationFailureEvent;
import io.quarkus.vertx.http.runtime.filters.Filters;
import io.smallrye.mutiny.infrastructure.Infrastructure;
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
 *
 * <p>Each failure is also counted by {@link SignInThrottle} (off the event loop, once the answer is sent). A sign-in
 * attempt (the form's post, or a console request with HTTP Basic) from an address that waits, or naming a Basic user
 * that waits, is answered {@code 429} with {@code Retry-After} before its password is looked at. The form's user name
 * is in its body, read by the form mechanism: a user name that waits is refused after the password check, with the
 * answer of a wrong password ({@link ConsoleSessionCheck}), so the answer never tells whether the password was right.
 */
@ApplicationScoped
class ConsoleSignIns {

    private static final Logger LOG = Logger.getLogger(ConsoleSignIns.class);
    /** The routing context attribute marking a form sign-in refused because its user name waits. */
    static final String USER_WAITS = "onceguard.console.sign-in.user-waits";

    private final SignInThrottle throttle;

    ConsoleSignIns(SignInThrottle throttle) {
        this.throttle = throttle;
    }

    void register(@Observes Filters filters) {
        filters.register(this::logFormSignIns, 10_000);
        filters.register(this::refuseWhileWaiting, 8_000);
    }

    /** Runs after {@link ConsoleOrigins}; the request stays paused, its body unread, while the table is asked. */
    private void refuseWhileWaiting(RoutingContext rc) {
        String path = rc.normalizedPath();
        Optional<String> basicUser = ConsoleOrigins.guarded(path) ? basicUser(rc) : Optional.empty();
        if (!ConsoleOrigins.FORM_POST.equals(path) && basicUser.isEmpty()) {
            rc.next();
            return;
        }
        String address = clientAddress(rc);
        rc.vertx().executeBlocking(() -> throttle.retryAfter(basicUser.orElse(null), address), false)
                .onComplete(checked -> {
                    if (checked.failed()) {
                        LOG.warnf("console sign-in throttle not read, the attempt goes on: %s", checked.cause().getMessage());
                        rc.next();
                    } else if (checked.result().isEmpty() || rc.response().ended()) {
                        rc.next();
                    } else {
                        long seconds = Math.max(1, (checked.result().get().toMillis() + 999) / 1000);
                        String mechanism = basicUser.isPresent() ? "basic" : "form";
                        throttle.countAttempt(mechanism, SignInThrottle.Outcome.THROTTLED);
                        LOG.infof("console sign-in%s from %s refused: it waits %d s after repeated failures",
                                basicUser.map(user -> " of " + printable(user) + " (HTTP Basic)").orElse(""),
                                address, seconds);
                        rc.response().setStatusCode(429).putHeader(HttpHeaders.RETRY_AFTER, String.valueOf(seconds))
                                .putHeader(HttpHeaders.CONTENT_TYPE, "text/plain; charset=UTF-8")
                                .end("Too many failed sign-ins: try again in " + seconds + " s.\n");
                    }
                });
    }

    private void logFormSignIns(RoutingContext rc) {
        if (ConsoleOrigins.FORM_POST.equals(rc.normalizedPath())) {
            rc.addEndHandler(ended -> {
                String location = rc.response().headers().get(HttpHeaders.LOCATION);
                String typed = rc.request().getFormAttribute("j_username");
                String user = printable(typed);
                if (rc.get(USER_WAITS) != null) {
                    throttle.countAttempt("form", SignInThrottle.Outcome.THROTTLED);
                    LOG.infof("console sign-in of %s from %s refused: the user name waits after repeated failures",
                            user, clientAddress(rc));
                } else if (rc.response().getStatusCode() == 302 && location != null
                        && !location.contains("error=true")) {
                    LOG.infof("console sign-in of %s succeeded", user);
                    offEventLoop(() -> throttle.succeeded(typed));
                } else if (rc.response().getStatusCode() == 302) {
                    LOG.infof("console sign-in of %s failed", user);
                    failed(rc, "form", typed);
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
                .ifPresent(rc -> basicUser(rc).ifPresent(user -> {
                    LOG.infof("console sign-in of %s (HTTP Basic) failed", printable(user));
                    failed(rc, "basic", user);
                }));
    }

    /** The client's address: the connection's, or the one a trusted proxy forwarded. */
    static String clientAddress(RoutingContext rc) {
        return rc.request().remoteAddress() == null ? "unknown" : rc.request().remoteAddress().hostAddress();
    }

    private void failed(RoutingContext rc, String mechanism, String user) {
        throttle.countAttempt(mechanism, SignInThrottle.Outcome.FAILED);
        String address = clientAddress(rc);
        offEventLoop(() -> throttle.failed(user, address));
    }

    private static void offEventLoop(Runnable work) {
        Infrastructure.getDefaultWorkerPool().execute(() -> {
            try {
                work.run();
            } catch (RuntimeException e) {
                LOG.warnf("console sign-in throttle not updated: %s", e.getMessage());
            }
        });
    }

    static boolean basic(RoutingContext rc) {
        String authorization = rc.request().getHeader(HttpHeaders.AUTHORIZATION);
        return authorization != null && authorization.regionMatches(true, 0, "Basic ", 0, 6);
    }

    private static Optional<String> basicUser(RoutingContext rc) {
        if (!basic(rc)) {
            return Optional.empty();
        }
        try {
            String credential = new String(Base64.getDecoder().decode(
                    rc.request().getHeader(HttpHeaders.AUTHORIZATION).substring(6).trim()), StandardCharsets.UTF_8);
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
