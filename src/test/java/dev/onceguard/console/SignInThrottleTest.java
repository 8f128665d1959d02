package dev.onceguard.console;

import dev.onceguard.Database;
import io.agroal.api.AgroalDataSource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.restassured.response.Response;
import io.restassured.specification.RequestSpecification;
import jakarta.inject.Inject;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Password guessing as an attacker does it, by HTTP Basic and by the login form: past a few failures of a user name,
 * or from one address, even the right password is refused ({@code 429} with {@code Retry-After}; by the form, for a
 * user name that waits, the answer of a wrong password), each further failure doubles the wait up to its maximum, and
 * another address or user is not concerned. The client address is the one
 * the trusted proxy (127.0.0.1 in tests) forwards, so that each test has addresses of its own.
 */
@QuarkusTest
@TestProfile(SignInThrottleTest.Strict.class)
class SignInThrottleTest {

    private static final String USER = "throttled";
    private static final String PASSWORD = "throttled-password";

    public static class Strict implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("onceguard.console.sign-in.free-failures-per-user", "3",
                    "onceguard.console.sign-in.free-failures-per-address", "6",
                    "onceguard.console.sign-in.first-delay", "30s",
                    "onceguard.console.sign-in.max-delay", "2m",
                    "quarkus.security.users.embedded.users." + USER, PASSWORD,
                    "quarkus.security.users.embedded.roles." + USER, "support");
        }
    }

    @Inject
    AgroalDataSource dataSource;

    private final String attacker = "198.51.100." + ThreadLocalRandom.current().nextInt(1, 255);
    private final String colleague = "203.0.113." + ThreadLocalRandom.current().nextInt(1, 255);

    @AfterEach
    void forget() {
        Database.execute(dataSource, "DELETE FROM console_sign_in_failures WHERE subject IN (?, ?, ?)",
                "user:" + USER, "address:" + attacker, "address:" + colleague);
    }

    @Test
    void guessingOneUsersPasswordMakesEvenTheRightOneWaitWithAGrowingDelay() {
        for (int i = 0; i < 3; i++) {
            basic(attacker, USER, "guess-" + i).get("/console").then().statusCode(401);
        }
        awaitBlocked("user:" + USER);

        Response right = basic(attacker, USER, PASSWORD).get("/console");
        assertThat(right.statusCode()).isEqualTo(429);
        assertThat(Long.parseLong(right.header("Retry-After"))).isBetween(1L, 30L);
        assertThat(right.header("WWW-Authenticate")).isNull();
        Response form = signIn(colleague, USER, PASSWORD);
        assertThat(form.statusCode()).as("the user name waits from any address: by the form, the answer to a wrong"
                + " password, so that it never tells whether the password was right").isEqualTo(302);
        assertThat(form.header("Location")).contains("error=true");
        assertThat(form.getCookie("onceguard-console")).isNull();

        Database.execute(dataSource, "UPDATE console_sign_in_failures SET blocked_until = now() WHERE subject = ?",
                "user:" + USER);
        basic(attacker, USER, "guess-3").get("/console").then().statusCode(401);
        awaitBlocked("user:" + USER);
        assertThat(Long.parseLong(basic(attacker, USER, PASSWORD).get("/console").header("Retry-After")))
                .as("the fourth failure waits twice as long").isBetween(31L, 60L);

        Database.execute(dataSource, "UPDATE console_sign_in_failures SET blocked_until = now(), failures = 40"
                + " WHERE subject = ?", "user:" + USER);
        basic(attacker, USER, "guess-41").get("/console").then().statusCode(401);
        awaitBlocked("user:" + USER);
        assertThat(Long.parseLong(basic(attacker, USER, PASSWORD).get("/console").header("Retry-After")))
                .as("never longer than max-delay").isBetween(61L, 120L);

        Database.execute(dataSource, "UPDATE console_sign_in_failures SET blocked_until = now() WHERE subject = ?",
                "user:" + USER);
        basic(attacker, USER, PASSWORD).get("/console").then().statusCode(200);
        assertThat(given().get("/q/metrics").asString())
                .containsPattern("onceguard_console_sign_ins_total\\{[^}]*mechanism=\"basic\",outcome=\"throttled\"[^}]*} [1-9]")
                .containsPattern("onceguard_console_sign_ins_total\\{[^}]*mechanism=\"form\",outcome=\"throttled\"[^}]*} [1-9]");
    }

    @Test
    void guessingFromOneAddressMakesThatAddressWaitForEveryUser() {
        for (int i = 0; i < 6; i++) {
            Response wrong = signIn(attacker, "nobody-" + UUID.randomUUID(), "guess");
            assertThat(wrong.statusCode()).isEqualTo(302);
            assertThat(wrong.header("Location")).contains("error=true");
        }
        awaitBlocked("address:" + attacker);

        assertThat(signIn(attacker, ConsoleClient.SUPPORT, "support-password").statusCode()).isEqualTo(429);
        assertThat(basic(attacker, ConsoleClient.SUPPORT, "support-password").get("/console").statusCode())
                .isEqualTo(429);
        Response colleagues = signIn(colleague, ConsoleClient.SUPPORT, "support-password");
        assertThat(colleagues.statusCode()).isEqualTo(302);
        assertThat(colleagues.header("Location")).endsWith("/console");
    }

    private static RequestSpecification basic(String address, String user, String password) {
        return given().redirects().follow(false).header("X-Forwarded-For", address).auth().preemptive()
                .basic(user, password);
    }

    private static Response signIn(String address, String user, String password) {
        return given().redirects().follow(false).header("X-Forwarded-For", address)
                .contentType("application/x-www-form-urlencoded").formParam("j_username", user)
                .formParam("j_password", password).post("/j_security_check");
    }

    /** Failures are counted once their answer is sent: waits (at most 10 s) until the subject waits. */
    private void awaitBlocked(String subject) {
        await().alias(subject + " waits").atMost(Duration.ofSeconds(10)).pollInSameThread()
                .pollInterval(Duration.ofMillis(20))
                .until(() -> Database.count(dataSource, "SELECT count(*) FROM console_sign_in_failures WHERE subject = ?"
                        + " AND blocked_until > now() + interval '1 second'", subject) > 0);
    }
}
