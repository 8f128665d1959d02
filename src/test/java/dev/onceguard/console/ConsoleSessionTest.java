package dev.onceguard.console;

import dev.onceguard.Database;
import io.agroal.api.AgroalDataSource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.Response;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HashMap;
import java.util.Map;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A console sign-in is a session the server can end: the cookies a browser kept from before its sign-out (copied by
 * an attacker, say) open nothing and run nothing afterwards, the form's encrypted cookie alone opens nothing, and a
 * session past its absolute lifetime is over however active its user was.
 */
@QuarkusTest
class ConsoleSessionTest {

    private static final String FORM_COOKIE = "onceguard-console";

    @Inject
    AgroalDataSource dataSource;

    @Test
    void cookiesKeptFromBeforeSignOutOpenNothingAndRunNothing() {
        Map<String, String> kept = ConsoleClient.signIn(ConsoleClient.ADMIN);
        assertThat(page(kept, "/console").statusCode()).isEqualTo(200);
        ConsoleClient.Form form = ConsoleClient.form(kept, "/console/jobs");

        given().redirects().follow(false).cookies(kept).cookie(ConsoleClient.CSRF_COOKIE, form.cookie())
                .contentType("application/x-www-form-urlencoded").formParam(ConsoleClient.CSRF_FIELD, form.token())
                .post("/console/logout").then().statusCode(303);

        assertSignedOut(page(kept, "/console"));
        assertSignedOut(page(kept, "/console/jobs"));
        long audit = Database.count(dataSource, "SELECT count(*) FROM console_audit");
        Response action = given().redirects().follow(false).cookies(kept)
                .cookie(ConsoleClient.CSRF_COOKIE, form.cookie()).contentType("application/x-www-form-urlencoded")
                .formParam(ConsoleClient.CSRF_FIELD, form.token())
                .post("/console/jobs/" + JobHistory.JOBS.get(0) + "/run");
        assertSignedOut(action);
        assertThat(Database.count(dataSource, "SELECT count(*) FROM console_audit")).isEqualTo(audit);
    }

    @Test
    void theFormCookieAloneOpensNothing() {
        Map<String, String> signedIn = ConsoleClient.signIn(ConsoleClient.SUPPORT);
        assertSignedOut(given().redirects().follow(false).cookie(FORM_COOKIE, signedIn.get(FORM_COOKIE)).get("/console"));

        Map<String, String> forged = new HashMap<>(signedIn);
        forged.put(ConsoleSessionCheck.SESSION_COOKIE, "not-a-session-token");
        assertSignedOut(page(forged, "/console"));

        Map<String, String> otherUsers = new HashMap<>(signedIn);
        otherUsers.put(ConsoleSessionCheck.SESSION_COOKIE,
                ConsoleClient.signIn(ConsoleClient.ADMIN).get(ConsoleSessionCheck.SESSION_COOKIE));
        assertSignedOut(page(otherUsers, "/console"));
        assertThat(page(signedIn, "/console").statusCode()).isEqualTo(200);
    }

    @Test
    void aSessionPastItsAbsoluteLifetimeIsOver() throws Exception {
        Map<String, String> signedIn = ConsoleClient.signIn(ConsoleClient.SUPPORT);
        assertThat(page(signedIn, "/console").statusCode()).isEqualTo(200);
        byte[] hash = MessageDigest.getInstance("SHA-256")
                .digest(signedIn.get(ConsoleSessionCheck.SESSION_COOKIE).getBytes(StandardCharsets.US_ASCII));

        Database.execute(dataSource, "UPDATE console_sessions SET started_at = now() - interval '7 hours 59 minutes'"
                + " WHERE token_sha256 = ?", hash);
        assertThat(page(signedIn, "/console").statusCode()).isEqualTo(200);
        Database.execute(dataSource, "UPDATE console_sessions SET started_at = now() - interval '8 hours 1 minute'"
                + " WHERE token_sha256 = ?", hash);
        assertSignedOut(page(signedIn, "/console"));
    }

    private static Response page(Map<String, String> cookies, String path) {
        return given().redirects().follow(false).cookies(cookies).get(path);
    }

    private static void assertSignedOut(Response response) {
        assertThat(response.statusCode()).isEqualTo(302);
        assertThat(response.header("Location")).endsWith("/console/login");
    }
}
