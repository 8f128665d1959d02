package dev.onceguard.checkout;

import dev.onceguard.TestTokens;
import dev.onceguard.platform.HourlyActivity;
import io.agroal.api.AgroalDataSource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.Response;
import io.smallrye.jwt.build.Jwt;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.ByteArrayInputStream;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Stream;

import static dev.onceguard.Database.count;
import static dev.onceguard.checkout.OrdersApi.ONE_EBOOK;
import static dev.onceguard.checkout.OrdersApi.createOrder;
import static dev.onceguard.checkout.OrdersApi.postOrder;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Scenario 12 for orders: every bad-input row of the contract gets its problem+json answer and leaves nothing
 * behind, so the same key then works for a valid request.
 */
@QuarkusTest
class OrderBadInputTest {

    @Inject
    AgroalDataSource db;

    @Inject
    HourlyActivity activity;

    static Stream<Arguments> invalidBodies() {
        String item = "{\"productId\":\"p-184\",\"quantity\":1}";
        return Stream.of(
                Arguments.of("{\"items\":[{\"productId\":\"p-184\",\"quantity\":1}]", "MALFORMED_JSON", null),
                Arguments.of("not json", "MALFORMED_JSON", null),
                Arguments.of("", "MALFORMED_JSON", null),
                Arguments.of(ONE_EBOOK + " {}", "MALFORMED_JSON", null),
                Arguments.of("{\"currency\":\"RUB\",\"currency\":\"RUB\",\"items\":[" + item + "]}", "MALFORMED_JSON", null),
                Arguments.of("[]", "VALIDATION_FAILED", ""),
                Arguments.of("{\"items\":[" + item + "],\"currency\":\"RUB\",\"price\":\"1.00\"}", "VALIDATION_FAILED", "price"),
                Arguments.of("{\"items\":[" + item + "],\"currency\":\"RUB\",\"total\":\"1.00\"}", "VALIDATION_FAILED", "total"),
                Arguments.of("{\"items\":[{\"productId\":\"p-184\",\"quantity\":1,\"unitPrice\":\"1.00\"}],\"currency\":\"RUB\"}",
                        "VALIDATION_FAILED", "items[0].unitPrice"),
                Arguments.of("{\"items\":[{\"productId\":\"p-184\",\"quantity\":\"1\"}],\"currency\":\"RUB\"}",
                        "VALIDATION_FAILED", "items[0].quantity"),
                Arguments.of("{\"items\":[{\"productId\":\"p-184\",\"quantity\":1.5}],\"currency\":\"RUB\"}",
                        "VALIDATION_FAILED", "items[0].quantity"),
                Arguments.of("{\"items\":{},\"currency\":\"RUB\"}", "VALIDATION_FAILED", "items"),
                Arguments.of("{\"currency\":\"RUB\"}", "VALIDATION_FAILED", "items"),
                Arguments.of("{\"items\":[],\"currency\":\"RUB\"}", "VALIDATION_FAILED", "items"),
                Arguments.of("{\"items\":[" + (item + ",").repeat(50) + item + "],\"currency\":\"RUB\"}", "VALIDATION_FAILED", "items"),
                Arguments.of("{\"items\":[{\"productId\":\"p-184\",\"quantity\":0}],\"currency\":\"RUB\"}",
                        "VALIDATION_FAILED", "items[0].quantity"),
                Arguments.of("{\"items\":[{\"productId\":\"p-184\",\"quantity\":101}],\"currency\":\"RUB\"}",
                        "VALIDATION_FAILED", "items[0].quantity"),
                Arguments.of("{\"items\":[{\"productId\":\"p-184\"}],\"currency\":\"RUB\"}", "VALIDATION_FAILED", "items[0].quantity"),
                Arguments.of("{\"items\":[{\"quantity\":1}],\"currency\":\"RUB\"}", "VALIDATION_FAILED", "items[0].productId"),
                Arguments.of("{\"items\":[{\"productId\":184,\"quantity\":1}],\"currency\":\"RUB\"}",
                        "VALIDATION_FAILED", "items[0].productId"),
                Arguments.of("{\"items\":[" + item + "],\"currency\":true}", "VALIDATION_FAILED", "currency"),
                Arguments.of("{\"items\":[" + item + "],\"currency\":1.5}", "VALIDATION_FAILED", "currency"),
                Arguments.of("{\"items\":[null],\"currency\":\"RUB\"}", "VALIDATION_FAILED", "items[0].<list element>"),
                Arguments.of("{\"items\":[{\"productId\":\"p-nope\",\"quantity\":1}],\"currency\":\"RUB\"}",
                        "VALIDATION_FAILED", "items[0].productId"),
                Arguments.of("{\"items\":[" + item + "]}", "VALIDATION_FAILED", "currency"),
                Arguments.of("{\"items\":[" + item + "],\"currency\":\"rub\"}", "VALIDATION_FAILED", "currency"),
                Arguments.of("{\"items\":[" + item + "],\"currency\":\"EUR\"}", "VALIDATION_FAILED", "currency"));
    }

    @ParameterizedTest
    @MethodSource("invalidBodies")
    void anInvalidBodyIsRefusedAndStoresNothing(String body, String code, String field) {
        String user = TestTokens.newUser();
        String key = UUID.randomUUID().toString();

        Response refused = createOrder(user, key, body);

        assertThat(refused.statusCode()).isEqualTo(400);
        assertThat(refused.contentType()).startsWith("application/problem+json");
        assertThat(refused.<String>path("code")).isEqualTo(code);
        assertThat(refused.<String>path("type")).isNotBlank();
        assertThat(refused.<String>path("title")).isNotBlank();
        assertThat(refused.<Integer>path("status")).isEqualTo(400);
        assertThat(refused.<String>path("detail")).isNotBlank();
        if (field != null) {
            assertThat(refused.<List<String>>path("errors.field")).contains(field);
        }
        assertNothingStoredAndKeyStillUsable(user, key);
    }

    @Test
    void anInvalidBodyWithAKeyWhoseRecordIsRememberedIsStillRefusedAsInvalid() {
        String user = TestTokens.newUser();
        String key = UUID.randomUUID().toString();
        assertThat(createOrder(user, key, ONE_EBOOK).statusCode()).isEqualTo(201);
        assertThat(createOrder(user, key, ONE_EBOOK).header("Idempotent-Replayed"))
                .as("this replay read the finished record, so the replica now answers it from memory").isEqualTo("true");

        Response refused = createOrder(user, key, "{\"items\":[{\"productId\":\"p-184\",\"quantity\":0}],\"currency\":\"RUB\"}");

        assertThat(refused.statusCode()).isEqualTo(400);
        assertThat(refused.<String>path("code")).isEqualTo("VALIDATION_FAILED");
        assertThat(refused.<List<String>>path("errors.field")).containsExactly("items[0].quantity");
        assertThat(count(db, "SELECT count(*) FROM idempotency_conflicts WHERE user_id = ?", user)).isZero();
        Response replay = createOrder(user, key, ONE_EBOOK);
        assertThat(replay.statusCode()).isEqualTo(201);
        assertThat(replay.header("Idempotent-Replayed")).isEqualTo("true");
    }

    @Test
    void aRefusedRequestLeavesNoCountInTheDatabase() {
        activity.flush();
        long countedBefore = count(db, "SELECT coalesce(sum(count), 0) FROM activity_hourly");

        assertThat(createOrder(TestTokens.newUser(), UUID.randomUUID().toString(), "not json").statusCode()).isEqualTo(400);
        activity.flush();

        assertThat(count(db, "SELECT coalesce(sum(count), 0) FROM activity_hourly")).isEqualTo(countedBefore);
    }

    @Test
    void aMissingKeyIsRefused() {
        String user = TestTokens.newUser();

        Response refused = createOrder(user, null, ONE_EBOOK);

        assertThat(refused.statusCode()).isEqualTo(400);
        assertThat(refused.<String>path("code")).isEqualTo("IDEMPOTENCY_KEY_MISSING");
        assertThat(count(db, "SELECT count(*) FROM orders WHERE user_id = ?", user)).isZero();
    }

    @ParameterizedTest
    @ValueSource(strings = {"\"\"", "has space", "tab\there", "\"bad\\escape\""})
    void anInvalidKeyIsRefused(String key) {
        String user = TestTokens.newUser();

        Response refused = createOrder(user, key, ONE_EBOOK);

        assertThat(refused.statusCode()).isEqualTo(400);
        assertThat(refused.<String>path("code")).isEqualTo("IDEMPOTENCY_KEY_INVALID");
        assertThat(count(db, "SELECT count(*) FROM idempotency_records WHERE user_id = ?", user)).isZero();
    }

    /** Two keys may mean two intents: the request is refused whole, rather than carried out under the first. */
    @Test
    void twoIdempotencyKeyHeadersAreInvalidAndCreateNothing() {
        String user = TestTokens.newUser();

        Response refused = given().header("Authorization", TestTokens.bearer(user)).contentType("application/json")
                .header("Idempotency-Key", "first-" + user).header("Idempotency-Key", "second-" + user)
                .body(ONE_EBOOK).post("/api/orders");

        assertThat(refused.statusCode()).isEqualTo(400);
        assertThat(refused.<String>path("code")).isEqualTo("IDEMPOTENCY_KEY_INVALID");
        assertThat(count(db, "SELECT count(*) FROM idempotency_records WHERE user_id = ?", user)).isZero();
        assertThat(count(db, "SELECT count(*) FROM orders WHERE user_id = ?", user)).isZero();
    }

    @Test
    void anEmptyKeyIsInvalidNotMissing() throws Exception {
        String user = TestTokens.newUser();

        HttpResponse<String> refused = postOrder(user, "", HttpClient.Version.HTTP_2,
                HttpRequest.BodyPublishers.ofString(ONE_EBOOK));

        assertThat(refused.statusCode()).isEqualTo(400);
        assertThat(refused.body()).contains("\"IDEMPOTENCY_KEY_INVALID\"");
    }

    @Test
    void aKeyLongerThan255CharactersIsRefusedAnd255IsAccepted() {
        String user = TestTokens.newUser();

        createOrder(user, "k".repeat(256), ONE_EBOOK).then().statusCode(400);
        createOrder(user, "k".repeat(255), ONE_EBOOK).then().statusCode(201);
    }

    @Test
    void aBodyOver64KiBIsRefusedWith413() {
        String user = TestTokens.newUser();
        String key = UUID.randomUUID().toString();
        String padding = " ".repeat(64 * 1024);

        Response refused = createOrder(user, key, ONE_EBOOK + padding);

        assertThat(refused.statusCode()).isEqualTo(413);
        assertThat(refused.<String>path("code")).isEqualTo("PAYLOAD_TOO_LARGE");
        assertThat(refused.header("X-Request-Id")).isNotBlank();
        assertNothingStoredAndKeyStillUsable(user, key);
    }

    @Test
    void aBodyOver64KiBSentInChunksWithoutALengthIsRefusedWith413() throws Exception {
        String user = TestTokens.newUser();
        String key = UUID.randomUUID().toString();
        byte[] body = (ONE_EBOOK + " ".repeat(64 * 1024)).getBytes(StandardCharsets.UTF_8);

        // a stream of unknown length goes out chunked, with no Content-Length to refuse it by
        HttpResponse<String> refused = postOrder(user, key, HttpClient.Version.HTTP_1_1,
                HttpRequest.BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(body)));

        assertThat(refused.statusCode()).isEqualTo(413);
        assertThat(refused.headers().firstValue("Content-Type")).hasValue("application/problem+json");
        assertThat(refused.body()).contains("\"PAYLOAD_TOO_LARGE\"");
        assertNothingStoredAndKeyStillUsable(user, key);
    }

    static Stream<Arguments> badTokens() {
        String user = "u-" + UUID.randomUUID();
        return Stream.of(
                Arguments.of(Map.of()),
                Arguments.of(Map.of("Authorization", "Bearer not-a-jwt")),
                Arguments.of(Map.of("Authorization", "Basic dXNlcjpwYXNz")),
                // a valid console login (admin:admin-password) is no way into the API
                Arguments.of(Map.of("Authorization", "Basic YWRtaW46YWRtaW4tcGFzc3dvcmQ=")),
                Arguments.of(Map.of("Authorization", "Bearer " + TestTokens.forThisApi(user)
                        .signWithSecret("another-secret-that-is-long-enough-for-hs256"))),
                Arguments.of(Map.of("Authorization", "Bearer " + Jwt.issuer("https://somebody.else")
                        .audience(TestTokens.AUDIENCE).subject(user).signWithSecret(TestTokens.SECRET))),
                Arguments.of(Map.of("Authorization", "Bearer " + TestTokens.forThisApi(user)
                        .issuedAt(Instant.now().minusSeconds(7200)).expiresAt(Instant.now().minusSeconds(3600))
                        .signWithSecret(TestTokens.SECRET))));
    }

    @ParameterizedTest
    @MethodSource("badTokens")
    void anythingButAValidBearerTokenGets401(Map<String, String> headers) {
        for (Response response : List.of(
                given().headers(headers).get("/api/products"),
                given().headers(headers).get("/api/orders"),
                given().headers(headers).header("Idempotency-Key", UUID.randomUUID().toString())
                        .contentType("application/json").body(ONE_EBOOK).post("/api/orders"))) {
            assertThat(response.statusCode()).isEqualTo(401);
            assertThat(response.contentType()).startsWith("application/problem+json");
            assertThat(response.<String>path("code")).isEqualTo("UNAUTHORIZED");
        }
    }

    @Test
    void wrongMethodMediaTypeAndAcceptGetTheirStatuses() {
        String user = TestTokens.newUser();
        var asUser = given().header("Authorization", TestTokens.bearer(user));

        Response method = asUser.delete("/api/orders");
        Response mediaType = given().header("Authorization", TestTokens.bearer(user))
                .header("Idempotency-Key", UUID.randomUUID().toString())
                .contentType("text/plain").body(ONE_EBOOK).post("/api/orders");
        Response accept = given().header("Authorization", TestTokens.bearer(user))
                .header("Idempotency-Key", UUID.randomUUID().toString())
                .contentType("application/json").accept("text/html").body(ONE_EBOOK).post("/api/orders");

        assertThat(List.of(method.statusCode(), mediaType.statusCode(), accept.statusCode()))
                .containsExactly(405, 415, 406);
        assertThat(List.of(method.<String>path("code"), mediaType.<String>path("code"), accept.<String>path("code")))
                .containsExactly("METHOD_NOT_ALLOWED", "UNSUPPORTED_MEDIA_TYPE", "NOT_ACCEPTABLE");
        assertThat(count(db, "SELECT count(*) FROM orders WHERE user_id = ?", user)).isZero();
    }

    @Test
    void aBadPageSizeIsAValidationError() {
        Response response = given().header("Authorization", TestTokens.bearer(TestTokens.newUser()))
                .get("/api/orders?limit=abc");

        assertThat(response.statusCode()).isEqualTo(400);
        assertThat(response.<List<String>>path("errors.field")).containsExactly("limit");
    }

    private void assertNothingStoredAndKeyStillUsable(String user, String key) {
        assertThat(count(db, "SELECT count(*) FROM idempotency_records WHERE user_id = ?", user)).isZero();
        assertThat(count(db, "SELECT count(*) FROM orders WHERE user_id = ?", user)).isZero();
        Response valid = createOrder(user, key, ONE_EBOOK);
        assertThat(valid.statusCode()).isEqualTo(201);
        assertThat(valid.header("Idempotent-Replayed")).isNull();
    }
}
