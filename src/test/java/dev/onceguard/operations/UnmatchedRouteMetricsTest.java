package dev.onceguard.operations;

import dev.onceguard.TestTokens;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.restassured.RestAssured;
import io.restassured.response.Response;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * An anonymous client cannot blind the request metrics: requests to routes that do not exist (404, 405, a 401 or a
 * redirect before routing) are recorded under fixed uri values, so however many distinct junk paths arrive the
 * registry's uri limit is never reached and real endpoints stay recorded; a client that hangs up mid-request is not a
 * server error. Runs in its own application (a profile of its own) so the registry starts empty.
 */
@QuarkusTest
@TestProfile(UnmatchedRouteMetricsTest.FreshRegistry.class)
class UnmatchedRouteMetricsTest {

    public static class FreshRegistry implements QuarkusTestProfile {
    }

    private static final Pattern URI = Pattern.compile("^http_server_requests_seconds_count\\{.*?uri=\"([^\"]*)\"", Pattern.MULTILINE);

    private static String metrics() {
        return given().get("/q/metrics").then().statusCode(200).extract().asString();
    }

    private static List<String> requestLines(String metrics, String uri) {
        return metrics.lines().filter(line -> line.startsWith("http_server_requests_seconds_count{"))
                .filter(line -> line.contains("uri=\"" + uri + "\"")).toList();
    }

    /**
     * The request lines of {@code uri}, waiting up to 30 s for the first: a request is recorded once its response is
     * written, which the client may see a moment before (and a request whose client hung up, once the server notices).
     */
    private static List<String> recordedLines(String uri) {
        return await().pollInSameThread()
                .alias("a request line of " + uri).atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(50))
                .until(() -> requestLines(metrics(), uri), lines -> !lines.isEmpty());
    }

    @Test
    void fiveHundredDistinctJunkPathsLeaveRealRequestsRecorded() {
        String bearer = TestTokens.bearer(TestTokens.newUser());
        String junk = "junk" + UUID.randomUUID().toString().substring(0, 8);
        for (int i = 0; i < 100; i++) {
            given().get("/" + junk + "-" + i).then().statusCode(404);
            given().header("Authorization", bearer).get("/api/" + junk + "-" + i).then().statusCode(404);
            Response notAllowed = given().header("Authorization", bearer).delete("/api/orders/" + junk + "-" + i);
            assertThat(notAllowed.statusCode()).isEqualTo(405);
            assertThat(notAllowed.header("Allow")).contains("GET").doesNotContain("DELETE");
            given().auth().preemptive().basic("admin", "wrong").redirects().follow(false)
                    .get("/console/" + junk + "-" + i).then().statusCode(401);
            given().redirects().follow(false).get("/console/" + junk + "-" + i).then().statusCode(302);
        }

        given().header("Authorization", bearer).get("/api/products").then().statusCode(200);

        assertThat(recordedLines("/api/products")).as("the real request is still recorded")
                .anySatisfy(line -> assertThat(line).contains("status=\"200\""));
        Matcher uris = URI.matcher(metrics());
        java.util.Set<String> values = new java.util.TreeSet<>();
        while (uris.find()) {
            values.add(uris.group(1));
        }
        assertThat(values).noneMatch(uri -> uri.contains(junk));
        assertThat(values).hasSizeLessThan(20);
    }

    @Test
    void aClientThatHangsUpMidRequestIsNotRecordedAsAServerError() throws Exception {
        List<LogRecord> errors = new CopyOnWriteArrayList<>();
        Handler errorLog = new Handler() {
            @Override
            public void publish(LogRecord record) {
                if (record.getLevel().intValue() >= Level.SEVERE.intValue()) {
                    errors.add(record);
                }
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        Logger.getLogger("").addHandler(errorLog);
        try {
            try (Socket socket = new Socket("localhost", RestAssured.port)) {
                OutputStream out = socket.getOutputStream();
                out.write(("POST /api/orders HTTP/1.1\r\nHost: localhost\r\nAuthorization: "
                        + TestTokens.bearer(TestTokens.newUser()) + "\r\nIdempotency-Key: " + UUID.randomUUID()
                        + "\r\nContent-Type: application/json\r\nContent-Length: 5000\r\n\r\n{\"items\":[")
                        .getBytes(StandardCharsets.US_ASCII));
                out.flush();
            }
            List<String> recorded = recordedLines("/api/orders");
            assertThat(recorded).as("the abandoned request is recorded").isNotEmpty();
            assertThat(recorded).noneMatch(line -> line.contains("status=\"500\"") || line.contains("SERVER_ERROR"));
            assertThat(recorded).anySatisfy(line -> assertThat(line).contains("outcome=\"CLIENT_ERROR\"")
                    .contains("status=\"RESET\""));
        } finally {
            Logger.getLogger("").removeHandler(errorLog);
        }
        assertThat(errors).as("errors logged while the request was abandoned").extracting(LogRecord::getMessage)
                .isEmpty();
    }
}
