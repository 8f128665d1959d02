package dev.onceguard.console;

import io.quarkus.vertx.http.runtime.filters.Filters;
import io.vertx.core.http.Cookie;
import io.vertx.core.http.CookieSameSite;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.ext.web.RoutingContext;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

import java.net.URI;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.regex.Pattern;

/**
 * What the console's answers carry, decided just before their headers go out:
 * <ul>
 * <li>{@code Strict-Transport-Security} when the request came over https (as the trusted proxy says);</li>
 * <li>every redirect to the console's own origin as a path-only {@code Location}: the form mechanism and Quarkus REST
 * build theirs from the request's {@code Host}, which a client writes as it likes;</li>
 * <li>the page a visitor asked for before signing in, kept in a cookie of ours (HttpOnly, sent only to the form's
 * post, a console path only), which sends them back there once signed in; the form mechanism's own cookie, readable
 * by scripts and holding an absolute address built from {@code Host}, is neither read
 * ({@code quarkus.http.auth.form.redirect-after-login=false}) nor sent;</li>
 * <li>and the CSRF cookie on console answers only: taken off the API's, the webhooks' and /q's answers.</li>
 * </ul>
 */
@ApplicationScoped
class ConsoleAnswerHeaders {

    static final String RETURN_COOKIE = "onceguard-console-return";
    static final String HSTS = "max-age=31536000";
    private static final String LOGIN_PAGE = "/console/login";
    private static final String LANDING_PAGE = "/console";
    private static final String FORM_LOCATION_COOKIE = "quarkus-redirect-location";
    private static final String CSRF_COOKIE = "onceguard-csrf";
    /** A console path and query, nothing that a browser would read as another host ({@code //…}, {@code /\…}). */
    private static final Pattern CONSOLE_PATH = Pattern.compile("/console(/[A-Za-z0-9\\-._~%!$&'()*+,;=:@/?]*)?");

    void register(@Observes Filters filters) {
        filters.register(this::onAnswer, 9_500);
    }

    private void onAnswer(RoutingContext rc) {
        String path = rc.normalizedPath();
        if (ConsoleOrigins.guarded(path)) {
            String returnTo = ConsoleOrigins.FORM_POST.equals(path) ? returnCookie(rc.request()) : null;
            rc.addHeadersEndHandler(ignored -> consoleHeaders(rc, path, returnTo));
        } else if (rc.request().method() == HttpMethod.GET || rc.request().method() == HttpMethod.HEAD) {
            rc.addHeadersEndHandler(ignored -> rc.response().removeCookies(CSRF_COOKIE, false));
        }
        rc.next();
    }

    private static void consoleHeaders(RoutingContext rc, String path, String returnTo) {
        HttpServerRequest request = rc.request();
        HttpServerResponse response = rc.response();
        boolean https = "https".equals(request.scheme());
        if (https) {
            response.putHeader("Strict-Transport-Security", HSTS);
        }
        String location = response.headers().get(HttpHeaders.LOCATION);
        if (location == null) {
            return;
        }
        // written by the form mechanism even though it no longer reads it back (redirect-after-login=false)
        response.removeCookies(FORM_LOCATION_COOKIE, false);
        String pathOnly = ownPath(location, request);
        if (LOGIN_PAGE.equals(pathOnly) && request.method() == HttpMethod.GET && !LOGIN_PAGE.equals(path)) {
            response.addCookie(returnCookie(request.uri(), https));
        } else if (ConsoleOrigins.FORM_POST.equals(path) && returnTo != null && LANDING_PAGE.equals(pathOnly)) {
            pathOnly = returnTo;
            response.addCookie(returnCookie("", https).setMaxAge(0));
        }
        response.headers().set(HttpHeaders.LOCATION, pathOnly);
    }

    /** The path, query and fragment of a location on this request's own origin; any other location unchanged. */
    private static String ownPath(String location, HttpServerRequest request) {
        URI uri;
        try {
            uri = URI.create(location);
        } catch (IllegalArgumentException e) {
            return location;
        }
        if (!uri.isAbsolute()) {
            return location;
        }
        String authority = request.authority() == null ? null : request.authority().toString();
        if (!uri.getScheme().equalsIgnoreCase(request.scheme()) || uri.getRawAuthority() == null
                || !uri.getRawAuthority().equalsIgnoreCase(authority)) {
            return location;
        }
        String path = uri.getRawPath() == null || uri.getRawPath().isEmpty() ? "/" : uri.getRawPath();
        String pathAndQuery = uri.getRawQuery() == null ? path : path + "?" + uri.getRawQuery();
        return uri.getRawFragment() == null ? pathAndQuery : pathAndQuery + "#" + uri.getRawFragment();
    }

    private static Cookie returnCookie(String pathAndQuery, boolean https) {
        return Cookie.cookie(RETURN_COOKIE, URLEncoder.encode(pathAndQuery, StandardCharsets.UTF_8))
                .setPath(ConsoleOrigins.FORM_POST).setHttpOnly(true).setSecure(https)
                .setSameSite(CookieSameSite.STRICT);
    }

    /** The console page the cookie names, or nothing when it names none (or something else). */
    private static String returnCookie(HttpServerRequest request) {
        Cookie cookie = request.getCookie(RETURN_COOKIE);
        if (cookie == null) {
            return null;
        }
        String page;
        try {
            page = URLDecoder.decode(cookie.getValue(), StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            return null;
        }
        return CONSOLE_PATH.matcher(page).matches() && !page.contains("//") ? page : null;
    }
}
