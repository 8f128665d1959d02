package dev.onceguard.platform;

import dev.onceguard.Database;
import dev.onceguard.Routes;
import dev.onceguard.TestTokens;
import io.agroal.api.AgroalDataSource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;
import io.restassured.response.Response;
import io.restassured.specification.RequestSpecification;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

import javax.crypto.Mac;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.Socket;
import javax.crypto.spec.SecretKeySpec;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Input PostgreSQL cannot store (a NUL, an unpaired surrogate) or longer than anything the service keeps is refused
 * at the boundary on every route the resources declare: a path id is a 404, a query value or header a 400 naming it
 * (the console's own 400 page on console paths), a JSON string a 400 naming its field; never a 5xx, nothing stored.
 */
@QuarkusTest
class UnstorableInputTest {

    private static final String ORDER = "{\"items\":[{\"productId\":\"p-184\",\"quantity\":1}],\"currency\":\"RUB\"}";
    private static final Pattern CSRF = Pattern.compile("name=\"csrf-token\" value=\"([^\"]+)\"");
    /** Percent-encoded values that cannot be stored or name nothing, as a client would put them in a URL. */
    private static final List<String> REFUSED_IN_URL = List.of("%00", "ord_%00", "a".repeat(300));
    /** UTF-8 forms of unpaired surrogates and an overlong NUL: a decoder must not turn them into a failure. */
    private static final List<String> MALFORMED_UTF8_IN_URL = List.of("x%ED%A0%80", "%ED%B0%80y", "%C0%80");
    /** JSON strings PostgreSQL cannot store: the escapes of NUL and of lone surrogates. */
    private static final List<String> REFUSED_IN_JSON = List.of("p\\u0000", "\\ud800", "x\\udc00y");

    @Inject
    AgroalDataSource dataSource;

    private final String user = TestTokens.newUser();

    private long storedForUser() {
        return Database.count(dataSource, """
                SELECT (SELECT count(*) FROM idempotency_records WHERE user_id = ?)
                     + (SELECT count(*) FROM orders WHERE user_id = ?)
                     + (SELECT count(*) FROM payments WHERE user_id = ?)""", user, user, user);
    }

    private long consoleAudit() {
        return Database.count(dataSource, "SELECT count(*) FROM console_audit");
    }

    private record Form(String cookie, String token) {
    }

    private static Form consoleForm() {
        Response page = given().auth().preemptive().basic("admin", "admin-password").get("/console/jobs");
        Matcher token = CSRF.matcher(page.asString());
        assertThat(token.find()).isTrue();
        return new Form(page.getCookie("onceguard-csrf"), token.group(1));
    }

    /** A request with the credentials and body the route's surface expects, with URL encoding left as written. */
    private RequestSpecification request(Routes.Route route, Form form) {
        RequestSpecification request = given().urlEncodingEnabled(false).redirects().follow(false);
        if (route.template().startsWith("/console")) {
            request.auth().preemptive().basic("admin", "admin-password");
            if (!route.method().equals("GET")) {
                request.cookie("onceguard-csrf", form.cookie()).contentType("application/x-www-form-urlencoded")
                        .formParam("csrf-token", form.token());
            }
            return request;
        }
        request.header("Authorization", TestTokens.bearer(user));
        if (!route.method().equals("GET")) {
            request.header("Idempotency-Key", UUID.randomUUID().toString()).contentType("application/json")
                    .body(route.template().equals("/api/orders") ? ORDER : "{\"paymentMethodToken\":\"tok_success\"}");
        }
        return request;
    }

    private static void assertRefusedAs(Response response, int status, Routes.Route route, String field) {
        assertThat(response.statusCode()).as(route + " " + field).isEqualTo(status);
        if (route.template().startsWith("/console")) {
            assertThat(response.contentType()).as(route.toString()).startsWith("text/html");
            if (field != null) {
                assertThat(response.asString()).as(route.toString()).contains("Bad request").contains(field);
            }
        } else {
            assertThat(response.contentType()).as(route.toString()).startsWith(Problem.MEDIA_TYPE);
            if (field != null) {
                assertThat(response.jsonPath().getString("code")).isEqualTo("VALIDATION_FAILED");
                assertThat(response.jsonPath().getString("errors[0].field")).as(route.toString()).isEqualTo(field);
            }
        }
    }

    @Test
    void aPathIdThatCannotBeStoredOrIsTooLongIsNotFoundOnEveryRoute() {
        Form form = consoleForm();
        long audit = consoleAudit();
        List<Routes.Route> routes = Routes.all().stream().filter(Routes.Route::hasPathParameter).toList();
        assertThat(routes).extracting(Routes.Route::template)
                .contains("/api/orders/{orderId}", "/api/orders/{orderId}/payments", "/console/users/{userId}");

        for (Routes.Route route : routes) {
            for (String value : REFUSED_IN_URL) {
                Response response = request(route, form).request(route.method(), route.path(value));
                assertRefusedAs(response, 404, route, null);
            }
            for (String value : MALFORMED_UTF8_IN_URL) {
                assertThat(request(route, form).request(route.method(), route.path(value)).statusCode())
                        .as(route + " " + value).isLessThan(500);
            }
        }
        assertThat(storedForUser()).isZero();
        assertThat(consoleAudit()).isEqualTo(audit);
    }

    @Test
    void aQueryValueThatCannotBeStoredOrIsTooLongIsA400NamingItOnEveryRoute() {
        Form form = consoleForm();
        List<Routes.Route> routes = Routes.all().stream().filter(route -> !route.queryParameters().isEmpty()).toList();
        assertThat(routes).extracting(Routes.Route::template).contains("/api/orders", "/console/operations");

        for (Routes.Route route : routes) {
            for (String parameter : route.queryParameters()) {
                for (String value : List.of("%00", "abc%00", "a".repeat(2000))) {
                    Response response = request(route, form)
                            .request(route.method(), route.path("x") + "?" + parameter + "=" + value);
                    assertRefusedAs(response, 400, route, parameter);
                }
                for (String value : MALFORMED_UTF8_IN_URL) {
                    assertThat(request(route, form).request(route.method(), route.path("x") + "?" + parameter + "=" + value)
                            .statusCode()).as(route + " " + parameter + "=" + value).isLessThan(500);
                }
            }
        }
        assertThat(storedForUser()).isZero();
    }

    // The HTTP codec already refuses a NUL in a header before any route: this guards that boundary, the service adds none.
    @Test
    void aNulInAHeaderIsA400AndStoresNothing() throws IOException {
        String bearer = TestTokens.bearer(user);
        String sandboxBody = "{\"amount\":\"10.00\",\"currency\":\"RUB\",\"paymentMethodToken\":\"tok_success\"}";
        long sandboxPayments = Database.count(dataSource, "SELECT count(*) FROM sandbox_payments");
        for (String path : List.of("/api/orders", "/sandbox/v1/payments")) {
            String status = rawRequest("POST " + path, List.of("Authorization: " + bearer,
                    "Idempotency-Key: key-\u0000-" + UUID.randomUUID(), "Content-Type: application/json"),
                    path.equals("/api/orders") ? ORDER : sandboxBody);
            assertThat(status).as(path).startsWith("HTTP/1.1 400");
        }
        assertThat(rawRequest("GET /api/orders", List.of("Authorization: " + bearer, "X-Trace: a\u0000b"), ""))
                .startsWith("HTTP/1.1 400");
        assertThat(storedForUser()).isZero();
        assertThat(Database.count(dataSource, "SELECT count(*) FROM sandbox_payments")).isEqualTo(sandboxPayments);
    }

    /** Sends bytes a well-behaved HTTP client would clean up (a NUL in a header) and answers the status line. */
    private static String rawRequest(String requestLine, List<String> headers, String body) throws IOException {
        byte[] content = body.getBytes(StandardCharsets.UTF_8);
        StringBuilder request = new StringBuilder(requestLine).append(" HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n");
        headers.forEach(header -> request.append(header).append("\r\n"));
        request.append("Content-Length: ").append(content.length).append("\r\n\r\n");
        try (Socket socket = new Socket("localhost", RestAssured.port)) {
            socket.setSoTimeout(10_000);
            OutputStream out = socket.getOutputStream();
            out.write(request.toString().getBytes(StandardCharsets.ISO_8859_1));
            out.write(content);
            out.flush();
            return new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.ISO_8859_1))
                    .readLine();
        }
    }

    @Test
    void aJsonStringThatCannotBeStoredIsA400NamingTheFieldOnEveryJsonEndpoint() {
        String orderId = given().header("Authorization", TestTokens.bearer(user))
                .header("Idempotency-Key", UUID.randomUUID().toString()).contentType("application/json").body(ORDER)
                .post("/api/orders").then().statusCode(201).extract().path("orderId");
        long stored = storedForUser();
        long sandboxPayments = Database.count(dataSource, "SELECT count(*) FROM sandbox_payments");
        Map<String, String> bodies = Map.of(
                "/api/orders", "{\"items\":[{\"productId\":\"%s\",\"quantity\":1}],\"currency\":\"RUB\"}",
                "/api/orders/{orderId}/payments", "{\"paymentMethodToken\":\"%s\"}",
                "/sandbox/v1/payments",
                "{\"amount\":\"10.00\",\"currency\":\"RUB\",\"paymentMethodToken\":\"tok_success\",\"metadata\":{\"orderId\":\"%s\"}}",
                "/api/payments/{paymentId}/refunds", "{\"reason\":\"OTHER\",\"note\":\"%s\"}",
                "/sandbox/v1/refunds", "{\"payment\":\"%s\",\"amount\":\"1.00\",\"currency\":\"RUB\"}");
        Map<String, String> fields = Map.of("/api/orders", "items[0].productId",
                "/api/orders/{orderId}/payments", "paymentMethodToken", "/sandbox/v1/payments", "metadata.orderId",
                "/api/payments/{paymentId}/refunds", "note", "/sandbox/v1/refunds", "payment");
        List<Routes.Route> jsonRoutes = Routes.all().stream()
                .filter(route -> route.method().equals("POST"))
                .filter(route -> route.template().startsWith("/api") || route.template().startsWith("/sandbox"))
                // a cancellation's body is an empty object: no value in it to store
                .filter(route -> !route.template().endsWith("/cancellation"))
                .toList();
        assertThat(jsonRoutes).extracting(Routes.Route::template).containsExactlyInAnyOrderElementsOf(bodies.keySet());

        for (Routes.Route route : jsonRoutes) {
            String bearer = route.template().endsWith("/refunds") ? TestTokens.refunds(user) : TestTokens.bearer(user);
            for (String value : REFUSED_IN_JSON) {
                Response response = given().header("Authorization", bearer)
                        .header("Idempotency-Key", UUID.randomUUID().toString()).contentType("application/json")
                        .body(bodies.get(route.template()).formatted(value))
                        .post(route.path(orderId));
                assertRefusedAs(response, 400, route, fields.get(route.template()));
            }
            Response tooLong = given().header("Authorization", bearer)
                    .header("Idempotency-Key", UUID.randomUUID().toString()).contentType("application/json")
                    .body(bodies.get(route.template()).formatted("a".repeat(5000)))
                    .post(route.path(orderId));
            assertThat(tooLong.statusCode()).as(route.toString()).isEqualTo(400);
            assertThat(tooLong.jsonPath().getString("errors[0].field")).as(route.toString())
                    .startsWith(fields.get(route.template()).replaceAll("[.\\[].*", ""));
        }
        assertThat(storedForUser()).isEqualTo(stored);
        assertThat(Database.count(dataSource, "SELECT count(*) FROM sandbox_payments")).isEqualTo(sandboxPayments);
    }

    @Test
    void aTokenWhoseSubjectCannotBeAUserIdIsRefusedLikeABadToken() {
        long records = Database.count(dataSource, "SELECT count(*) FROM idempotency_records");
        for (String subject : List.of("u-\\u0000", "u-\\ud800", "u-" + "a".repeat(300))) {
            String bearer = "Bearer " + signedWithRawSubject(subject);
            given().header("Authorization", bearer).get("/api/orders").then().statusCode(401);
            given().header("Authorization", bearer).header("Idempotency-Key", UUID.randomUUID().toString())
                    .contentType("application/json").body(ORDER).post("/api/orders")
                    .then().statusCode(401).header("WWW-Authenticate", "Bearer");
        }
        assertThat(Database.count(dataSource, "SELECT count(*) FROM idempotency_records")).isEqualTo(records);
    }

    /** An HS256 token whose {@code sub} is written into the claims JSON as given, JSON escapes included. */
    private static String signedWithRawSubject(String subject) {
        long now = java.time.Instant.now().getEpochSecond();
        String header = base64Url("{\"alg\":\"HS256\",\"typ\":\"JWT\"}".getBytes(StandardCharsets.UTF_8));
        String claims = base64Url(("{\"iss\":\"" + TestTokens.ISSUER + "\",\"sub\":\"" + subject + "\",\"iat\":" + now
                + ",\"exp\":" + (now + 300) + "}").getBytes(StandardCharsets.UTF_8));
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(TestTokens.SECRET.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
            byte[] signature = mac.doFinal((header + "." + claims).getBytes(StandardCharsets.US_ASCII));
            return header + "." + claims + "." + base64Url(signature);
        } catch (java.security.GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String base64Url(byte[] bytes) {
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }
}
