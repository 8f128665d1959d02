package dev.onceguard.console;

import io.quarkus.security.AuthenticationFailedException;
import io.quarkus.security.identity.AuthenticationRequestContext;
import io.quarkus.security.identity.SecurityIdentity;
import io.quarkus.security.identity.SecurityIdentityAugmentor;
import io.quarkus.vertx.http.runtime.security.HttpSecurityUtils;
import io.smallrye.mutiny.Uni;
import io.vertx.core.http.Cookie;
import io.vertx.core.http.CookieSameSite;
import io.vertx.ext.web.RoutingContext;
import jakarta.enterprise.context.ApplicationScoped;
import org.jboss.logging.Logger;

import java.util.Map;

/**
 * Ties a console form sign-in to its server-side session ({@link ConsoleSessions}). A successful form sign-in opens a
 * session and sets its token cookie beside the form's own, unless its user name waits after repeated failures
 * ({@link SignInThrottle}): then it is refused like a wrong password; any later console request signed in by the form's cookie
 * is accepted only with the token of an open session of the same user, else it is treated as not signed in (the login
 * page). HTTP Basic sends its password with every request and has no session to check.
 */
@ApplicationScoped
class ConsoleSessionCheck implements SecurityIdentityAugmentor {

    static final String SESSION_COOKIE = "onceguard-console-session";
    private static final Logger LOG = Logger.getLogger(ConsoleSessionCheck.class);

    private final ConsoleSessions sessions;
    private final SignInThrottle throttle;

    ConsoleSessionCheck(ConsoleSessions sessions, SignInThrottle throttle) {
        this.sessions = sessions;
        this.throttle = throttle;
    }

    @Override
    public Uni<SecurityIdentity> augment(SecurityIdentity identity, AuthenticationRequestContext context) {
        return Uni.createFrom().item(identity);
    }

    @Override
    public Uni<SecurityIdentity> augment(SecurityIdentity identity, AuthenticationRequestContext context,
                                         Map<String, Object> attributes) {
        RoutingContext rc = HttpSecurityUtils.getRoutingContextAttribute(attributes);
        if (identity.isAnonymous() || rc == null || !ConsoleOrigins.guarded(rc.normalizedPath())
                || ConsoleSignIns.basic(rc)) {
            return Uni.createFrom().item(identity);
        }
        String user = identity.getPrincipal().getName();
        if (ConsoleOrigins.FORM_POST.equals(rc.normalizedPath())) {
            return context.runBlocking(() -> {
                if (throttle.userWaits(user)) {
                    rc.put(ConsoleSignIns.USER_WAITS, true);
                    throw new AuthenticationFailedException("the user name waits after repeated failures");
                }
                String token = sessions.start(user);
                rc.response().addCookie(Cookie.cookie(SESSION_COOKIE, token).setPath("/").setHttpOnly(true)
                        .setSameSite(CookieSameSite.STRICT).setSecure("https".equals(rc.request().scheme()))
                        .setMaxAge(sessions.lifetime().toSeconds()));
                return identity;
            });
        }
        Cookie cookie = rc.request().getCookie(SESSION_COOKIE);
        if (cookie == null) {
            return Uni.createFrom().failure(new AuthenticationFailedException("no console session"));
        }
        return context.runBlocking(() -> {
            if (!sessions.active(cookie.getValue(), user)) {
                LOG.debugf("a console request of %s came with a session that is over", user);
                throw new AuthenticationFailedException("console session over");
            }
            return identity;
        });
    }
}
