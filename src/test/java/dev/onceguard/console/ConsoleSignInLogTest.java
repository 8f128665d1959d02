package dev.onceguard.console;

import io.quarkus.test.junit.QuarkusTest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.time.Duration;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** Console sign-ins are logged at INFO, successful or not, with the user name and never the password. */
@QuarkusTest
class ConsoleSignInLogTest {

    private final List<LogRecord> records = new CopyOnWriteArrayList<>();
    private final Handler capture = new Handler() {
        @Override
        public void publish(LogRecord record) {
            records.add(record);
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    };
    private final Logger logger = Logger.getLogger(ConsoleSignIns.class.getName());

    @BeforeEach
    void listen() {
        logger.addHandler(capture);
    }

    @AfterEach
    void stopListening() {
        logger.removeHandler(capture);
    }

    @Test
    void aFormSignInIsLoggedWithItsUserAndOutcome() throws InterruptedException {
        given().redirects().follow(false).formParam("j_username", "support").formParam("j_password", "support-password")
                .post("/j_security_check").then().statusCode(302);
        awaitRecords(1); // each answer's line is written as its answer ends: two sign-ins' lines could swap
        given().redirects().follow(false).formParam("j_username", "support").formParam("j_password", "not-the-password")
                .post("/j_security_check").then().statusCode(302);

        awaitRecords(2);
        assertThat(messages()).containsExactly("console sign-in of \"support\" succeeded",
                "console sign-in of \"support\" failed");
        assertThat(records).allMatch(r -> r.getLevel().intValue() == Level.INFO.intValue());
    }

    @Test
    void aRefusedBasicLoginIsLoggedWithoutItsPassword() throws InterruptedException {
        given().redirects().follow(false).auth().preemptive().basic("admin", "guessed-password-1").get("/console")
                .then().statusCode(401);
        given().auth().preemptive().basic("admin", "admin-password").get("/console").then().statusCode(200);

        awaitRecords(1);
        assertThat(messages()).containsExactly("console sign-in of \"admin\" (HTTP Basic) failed");
        assertThat(String.join("\n", messages())).doesNotContain("guessed-password-1", "admin-password");
    }

    /** A form sign-in is logged once its answer has been sent, so possibly just after the client has read it. */
    private void awaitRecords(int count) {
        await().pollInSameThread()
                .atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(20)).until(() -> records.size() >= count);
    }

    private List<String> messages() {
        return records.stream().map(r -> r.getParameters() == null ? r.getMessage()
                : String.format(r.getMessage(), r.getParameters())).toList();
    }
}
