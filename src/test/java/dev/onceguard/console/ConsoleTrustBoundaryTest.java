package dev.onceguard.console;

import dev.onceguard.Database;
import dev.onceguard.Routes;
import dev.onceguard.TestTokens;
import io.agroal.api.AgroalDataSource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.Response;
import io.restassured.specification.RequestSpecification;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Set;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Each surface trusts its own credentials only: a bearer token, whatever roles it claims, opens no console page and
 * runs no console action (it is answered like a script whose Basic password is wrong: 401 and the Basic challenge,
 * while a browser without credentials is sent to the login page); a console login (HTTP Basic or the form's session)
 * acts as nobody on the API. The routes are read from the resources, so a page added later is covered too.
 */
@QuarkusTest
class ConsoleTrustBoundaryTest {

    private static final String SESSION_COOKIE = "onceguard-console";

    @Inject
    AgroalDataSource dataSource;

    private static List<Routes.Route> consoleRoutes() {
        List<Routes.Route> routes = Routes.under("/console").stream()
                .filter(route -> !route.template().equals("/console/login"))
                .toList();
        assertThat(routes).extracting(Routes.Route::method).contains("GET", "POST");
        return routes;
    }

    private static String adminBearer() {
        return "Bearer " + TestTokens.forThisApi(TestTokens.newUser())
                .groups(Set.of(ConsoleUser.ADMIN, ConsoleUser.SUPPORT)).signWithSecret(TestTokens.SECRET);
    }

    private static Response send(Routes.Route route, RequestSpecification request, ConsoleClient.Form form) {
        String path = route.path("x");
        if (route.method().equals("GET")) {
            return request.redirects().follow(false).get(path);
        }
        return request.redirects().follow(false).cookie(ConsoleClient.CSRF_COOKIE, form.cookie())
                .contentType("application/x-www-form-urlencoded").formParam(ConsoleClient.CSRF_FIELD, form.token())
                .request(route.method(), path);
    }

    @Test
    void aBearerTokenWithAdminGroupsIsRefusedOnEveryConsoleRouteLikeCredentialsThatAreNotAConsoleLogin() {
        ConsoleClient.Form form = ConsoleClient.form(ConsoleClient.ADMIN, "/console/jobs");
        String bearer = adminBearer();
        long auditBefore = Database.count(dataSource, "SELECT count(*) FROM console_audit");

        for (Routes.Route route : consoleRoutes()) {
            Response anonymous = send(route, given(), form);
            Response wrongPassword = send(route, given().auth().preemptive().basic(ConsoleClient.ADMIN, "wrong"), form);
            Response withToken = send(route, given().header("Authorization", bearer), form);

            assertThat(anonymous.statusCode()).as("anonymous " + route).isEqualTo(302);
            assertThat(anonymous.header("Location")).as("anonymous " + route).endsWith("/console/login");
            assertThat(withToken.statusCode()).as("bearer " + route).isEqualTo(401).isEqualTo(wrongPassword.statusCode());
            assertThat(withToken.header("WWW-Authenticate")).as("bearer " + route)
                    .isEqualTo(wrongPassword.header("WWW-Authenticate"));
            assertThat(withToken.header("Location")).as("bearer " + route).isNull();
            assertThat(withToken.asString()).as("bearer " + route).isEmpty();
        }
        assertThat(Database.count(dataSource, "SELECT count(*) FROM console_audit"))
                .as("no console action ran for a bearer token").isEqualTo(auditBefore);
    }

    @Test
    void aRealActionPostedWithABearerTokenDoesNotRun() {
        ConsoleClient.Form form = ConsoleClient.form(ConsoleClient.ADMIN, "/console/jobs");
        long auditBefore = Database.count(dataSource, "SELECT count(*) FROM console_audit");

        given().header("Authorization", adminBearer()).redirects().follow(false)
                .cookie(ConsoleClient.CSRF_COOKIE, form.cookie()).contentType("application/x-www-form-urlencoded")
                .formParam(ConsoleClient.CSRF_FIELD, form.token())
                .post("/console/jobs/" + JobHistory.JOBS.get(0) + "/run")
                .then().statusCode(401);

        assertThat(Database.count(dataSource, "SELECT count(*) FROM console_audit")).isEqualTo(auditBefore);
    }

    @Test
    void aConsoleLoginActsAsNobodyOnTheApi() {
        String session = given().redirects().follow(false).contentType("application/x-www-form-urlencoded")
                .formParam("j_username", ConsoleClient.ADMIN).formParam("j_password", "admin-password")
                .post("/j_security_check").then().statusCode(302).extract().cookie(SESSION_COOKIE);
        assertThat(session).as("the form login's session cookie").isNotNull();
        ConsoleClient.page(ConsoleClient.ADMIN, "/console").then().statusCode(200);

        List<Routes.Route> api = Routes.under("/api");
        assertThat(api).isNotEmpty();
        for (Routes.Route route : api) {
            for (RequestSpecification console : List.of(ConsoleClient.as(ConsoleClient.ADMIN),
                    given().cookie(SESSION_COOKIE, session))) {
                console.redirects().follow(false).header("Idempotency-Key", "console-" + route.method())
                        .contentType("application/json").body(route.method().equals("GET") ? "" : "{}")
                        .request(route.method(), route.path("ord_x"))
                        .then().statusCode(401).header("WWW-Authenticate", "Bearer");
            }
        }
    }
    /**
     * A forged action as a page of another origin sends it with the admin's credentials (fetch in no-cors mode, a
     * form with enctype text/plain): no body and no Content-Type, an empty form, a text/plain body naming the token
     * field, JSON. None runs, whatever the route, and none writes an audit entry.
     */
    @Test
    void aConsolePostWithoutAVerifiedTokenIsRefusedWhateverItsContentType() {
        ConsoleClient.Form form = ConsoleClient.form(ConsoleClient.ADMIN, "/console/jobs");
        long auditBefore = Database.count(dataSource, "SELECT count(*) FROM console_audit");
        String job = "/console/jobs/" + JobHistory.JOBS.get(0) + "/run";
        long runsBefore = Database.count(dataSource, "SELECT count(*) FROM job_runs WHERE job = ?", JobHistory.JOBS.get(0));

        List<String> posts = new java.util.ArrayList<>(consoleRoutes().stream()
                .filter(route -> route.method().equals("POST")).map(route -> route.path("1")).toList());
        posts.add(job);
        for (String path : posts) {
            Response noBody = ConsoleClient.as(ConsoleClient.ADMIN).post(path);
            Response emptyForm = ConsoleClient.as(ConsoleClient.ADMIN).cookie(ConsoleClient.CSRF_COOKIE, form.cookie())
                    .contentType("application/x-www-form-urlencoded").body("").post(path);
            Response textPlain = ConsoleClient.as(ConsoleClient.ADMIN).cookie(ConsoleClient.CSRF_COOKIE, form.cookie())
                    .contentType("text/plain").body(ConsoleClient.CSRF_FIELD + "=" + form.token()).post(path);
            Response json = ConsoleClient.as(ConsoleClient.ADMIN).cookie(ConsoleClient.CSRF_COOKIE, form.cookie())
                    .contentType("application/json").body("{}").post(path);

            assertThat(noBody.statusCode()).as("no body, no Content-Type: " + path).isEqualTo(400);
            assertThat(emptyForm.statusCode()).as("an empty form: " + path).isEqualTo(400);
            assertThat(textPlain.statusCode()).as("text/plain: " + path).isIn(400, 415);
            assertThat(json.statusCode()).as("JSON: " + path).isIn(400, 415);
        }
        assertThat(Database.count(dataSource, "SELECT count(*) FROM console_audit")).isEqualTo(auditBefore);
        assertThat(Database.count(dataSource, "SELECT count(*) FROM job_runs WHERE job = ?", JobHistory.JOBS.get(0)))
                .isEqualTo(runsBefore);
    }

    /**
     * A form with its valid token, sent by a page of another origin (another site, or another port of this host)
     * is refused before it runs; the same form from the console's own origin runs.
     */
    @Test
    void aConsoleActionFromAnotherOriginIsRefusedEvenWithItsToken() {
        String job = "/console/jobs/" + JobHistory.JOBS.get(0) + "/run";
        String self = "http://localhost:" + io.restassured.RestAssured.port;
        long auditBefore = Database.count(dataSource, "SELECT count(*) FROM console_audit");

        for (java.util.Map<String, String> headers : List.of(java.util.Map.of("Origin", "https://evil.example"),
                java.util.Map.of("Origin", "http://localhost:1"), java.util.Map.of("Origin", "null"),
                java.util.Map.of("Sec-Fetch-Site", "cross-site"),
                java.util.Map.of("Sec-Fetch-Site", "same-site", "Origin", "http://127.0.0.1:1"),
                java.util.Map.of("Sec-Fetch-Site", "same-site"))) {
            ConsoleClient.Form form = ConsoleClient.form(ConsoleClient.ADMIN, "/console/jobs");
            Response forged = ConsoleClient.as(ConsoleClient.ADMIN).headers(headers)
                    .cookie(ConsoleClient.CSRF_COOKIE, form.cookie()).contentType("application/x-www-form-urlencoded")
                    .formParam(ConsoleClient.CSRF_FIELD, form.token()).post(job);
            assertThat(forged.statusCode()).as(headers.toString()).isEqualTo(403);
        }
        assertThat(Database.count(dataSource, "SELECT count(*) FROM console_audit")).isEqualTo(auditBefore);

        ConsoleClient.Form form = ConsoleClient.form(ConsoleClient.ADMIN, "/console/jobs");
        ConsoleClient.as(ConsoleClient.ADMIN).header("Origin", self).header("Sec-Fetch-Site", "same-origin")
                .cookie(ConsoleClient.CSRF_COOKIE, form.cookie()).contentType("application/x-www-form-urlencoded")
                .formParam(ConsoleClient.CSRF_FIELD, form.token()).formParam(ConsoleClient.REASON_FIELD, ConsoleClient.REASON)
                .post(job).then().statusCode(303);
    }

    /** A hostile page cannot sign the victim's browser in as the attacker: the sign-in form checks the origin too. */
    @Test
    void theSignInFormRefusesAnotherOrigin() {
        Response forged = given().redirects().follow(false).header("Origin", "https://evil.example")
                .contentType("application/x-www-form-urlencoded")
                .formParam("j_username", ConsoleClient.ADMIN).formParam("j_password", "admin-password")
                .post("/j_security_check");
        assertThat(forged.statusCode()).isEqualTo(403);
        assertThat(forged.getCookie(SESSION_COOKIE)).isNull();

        given().redirects().follow(false).header("Origin", "http://localhost:" + io.restassured.RestAssured.port)
                .contentType("application/x-www-form-urlencoded")
                .formParam("j_username", ConsoleClient.ADMIN).formParam("j_password", "admin-password")
                .post("/j_security_check").then().statusCode(302).cookie(SESSION_COOKIE);
    }
}
