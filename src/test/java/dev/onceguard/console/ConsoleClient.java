package dev.onceguard.console;

import io.restassured.response.Response;
import io.restassured.specification.RequestSpecification;

import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;

/** The console as an operator's browser uses it: HTTP Basic, pages fetched first, forms posted with their CSRF token. */
final class ConsoleClient {

    static final String SUPPORT = "support";
    static final String ADMIN = "admin";
    static final String CSRF_COOKIE = "onceguard-csrf";
    static final String CSRF_FIELD = "csrf-token";
    static final String REASON_FIELD = "reason";
    /** The reason the tests give for an admin action when the reason is not what they are about. */
    static final String REASON = "ticket 4711: the customer asked us to check";
    private static final Map<String, String> PASSWORDS = Map.of(SUPPORT, "support-password", ADMIN, "admin-password");
    private static final Pattern HIDDEN_TOKEN = Pattern.compile("name=\"" + CSRF_FIELD + "\" value=\"([^\"]+)\"");

    /** The CSRF cookie a page set and the token its forms carry. */
    record Form(String cookie, String token) {
    }

    private ConsoleClient() {
    }

    static RequestSpecification as(String user) {
        return given().auth().preemptive().basic(user, PASSWORDS.get(user)).redirects().follow(false);
    }

    static Response page(String user, String path) {
        return as(user).get(path);
    }

    /** Opens {@code page} as {@code user} and takes the token of its forms, as a browser would before posting. */
    static Form form(String user, String page) {
        return form(page(user, page), page);
    }

    /** The token of the forms on {@code page}, opened with the cookies of a form sign-in. */
    static Form form(Map<String, String> signedIn, String page) {
        return form(given().redirects().follow(false).cookies(signedIn).get(page), page);
    }

    private static Form form(Response response, String page) {
        assertThat(response.statusCode()).as(page).isEqualTo(200);
        Matcher token = HIDDEN_TOKEN.matcher(response.asString());
        assertThat(token.find()).as("a form with a CSRF token on " + page).isTrue();
        String cookie = response.getCookie(CSRF_COOKIE);
        assertThat(cookie).as("the CSRF cookie of " + page).isNotNull();
        return new Form(cookie, token.group(1));
    }

    /** Signs {@code user} in with the login form and returns the cookies the browser keeps. */
    static Map<String, String> signIn(String user) {
        Response signIn = given().redirects().follow(false).contentType("application/x-www-form-urlencoded")
                .formParam("j_username", user).formParam("j_password", PASSWORDS.get(user)).post("/j_security_check");
        assertThat(signIn.statusCode()).isEqualTo(302);
        assertThat(signIn.header("Location")).endsWith("/console");
        return signIn.cookies();
    }

    /** Posts an admin action's form the way the page's own form would, with a reason. */
    static Response post(String user, String path, Form form) {
        return post(user, path, form, REASON);
    }

    /** Posts an admin action's form with {@code reason} as its reason field. */
    static Response post(String user, String path, Form form, String reason) {
        return post(user, path, form, reason, Map.of());
    }

    /** Posts an admin action's form with {@code reason} and the form's hidden {@code fields} (a bulk action's filter). */
    static Response post(String user, String path, Form form, String reason, Map<String, String> fields) {
        return as(user).cookie(CSRF_COOKIE, form.cookie()).contentType("application/x-www-form-urlencoded")
                .formParam(CSRF_FIELD, form.token()).formParam(REASON_FIELD, reason).formParams(fields).post(path);
    }

    /** Posts an admin action's form with no reason field at all. */
    static Response postWithoutReason(String user, String path, Form form) {
        return as(user).cookie(CSRF_COOKIE, form.cookie()).contentType("application/x-www-form-urlencoded")
                .formParam(CSRF_FIELD, form.token()).post(path);
    }

    /** Posts the form without any CSRF token: no cookie, no field, as a forged cross-site form would. */
    static Response postWithoutToken(String user, String path) {
        return as(user).contentType("application/x-www-form-urlencoded").formParam("confirm", "yes").post(path);
    }
}
