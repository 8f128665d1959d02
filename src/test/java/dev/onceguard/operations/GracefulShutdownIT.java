package dev.onceguard.operations;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.onceguard.TestTokens;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The packaged service ({@code target/quarkus-app}, as {@code java -jar} runs it in the prod profile) gets SIGTERM
 * while a payment is in flight: the sandbox's {@code tok_timeout_after_commit} answers only after the provider
 * timeout, so the client waits that long for its 202. Readiness goes DOWN at once, new requests are refused once the
 * shutdown delay has passed, and the payment still gets its answer before the process exits. The run's log, read
 * afterwards, is JSON lines carrying the request's context, with the console's sign-ins, and no secret in it.
 */
class GracefulShutdownIT {

    private static final Path JAR = Path.of("target", "quarkus-app", "quarkus-run.jar");
    private static final Duration PROVIDER_TIMEOUT = Duration.ofSeconds(8);
    private static final String CONSOLE_PASSWORD = "console-password-of-ops-7f3a";
    private static final String WRONG_PASSWORD = "wrong-password-of-ops-91c2";
    private static final String SESSION_KEY = "session-encryption-key-of-the-it-5d0e";
    private static final String PAYMENT_TOKEN = "tok_timeout_after_commit";

    private static final ObjectMapper JSON = new ObjectMapper();

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(2)).build();
    private final String user = TestTokens.newUser();
    private final String bearer = TestTokens.bearer(user);
    private final String paymentKey = UUID.randomUUID().toString();
    private Process service;
    private Path log;
    private String base;

    @BeforeEach
    void startThePackagedService() throws Exception {
        Path nativeRunner = Path.of(System.getProperty("native.image.path", "target/none"));
        Assumptions.assumeFalse(Files.notExists(JAR) && Files.exists(nativeRunner),
                "GracefulShutdownIT runs the JVM jar; a native build (-Pnative) packages none");
        assertThat(JAR).as("the packaged service (./mvnw package)").exists();
        int port;
        try (ServerSocket free = new ServerSocket(0)) {
            port = free.getLocalPort();
        }
        base = "http://localhost:" + port;
        Map<String, String> env = new HashMap<>();
        env.put("QUARKUS_HTTP_PORT", String.valueOf(port));
        env.put("QUARKUS_DATASOURCE_JDBC_URL", System.getenv()
                .getOrDefault("_TEST_QUARKUS_DATASOURCE_JDBC_URL", "jdbc:postgresql://127.0.0.1:5432/test"));
        env.put("QUARKUS_DATASOURCE_USERNAME", "postgres");
        env.put("SMALLRYE_JWT_VERIFY_KEY_LOCATION", Path.of("src/test/resources/jwt/test-hs256.jwk").toAbsolutePath().toString());
        env.put("SMALLRYE_JWT_VERIFY_ALGORITHM", "HS256");
        env.put("MP_JWT_VERIFY_ISSUER", TestTokens.ISSUER);
        env.put("MP_JWT_VERIFY_AUDIENCES", TestTokens.AUDIENCE);
        env.put("ONCEGUARD_PAYMENTS_PROVIDER", "sandbox");
        env.put("ONCEGUARD_SANDBOX_ENABLED", "true");
        env.put("ONCEGUARD_SANDBOX_BASE_URL", base + "/sandbox/v1");
        env.put("ONCEGUARD_SANDBOX_WEBHOOK_URL", base + "/webhooks/sandbox");
        env.put("ONCEGUARD_PAYMENTS_PROVIDER_TIMEOUT", PROVIDER_TIMEOUT.toSeconds() + "s");
        env.put("QUARKUS_SECURITY_USERS_EMBEDDED_USERS_OPS", CONSOLE_PASSWORD);
        env.put("QUARKUS_SECURITY_USERS_EMBEDDED_ROLES_OPS", "admin");
        env.put("QUARKUS_HTTP_AUTH_SESSION_ENCRYPTION_KEY", SESSION_KEY);
        env.put("ONCEGUARD_CATALOG_DEMO", "true");
        log = Path.of("target", "graceful-shutdown-it.log");
        ProcessBuilder builder = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-jar", JAR.toString()).redirectErrorStream(true).redirectOutput(log.toFile());
        builder.environment().putAll(env);
        service = builder.start();
        await().pollInSameThread()
                .alias("ready within 90 s").atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(200))
                .failFast(() -> assertThat(service.isAlive()).as("the service is running\n" + Files.readString(log))
                        .isTrue())
                .until(() -> status("/q/health/ready") == 200);
    }

    @AfterEach
    void stopIt() {
        service.destroyForcibly();
    }

    @Test
    void sigtermDuringAPaymentLetsItsClientGetTheAnswerAndTheLogSaysWhatHappenedWithoutASecret() throws Exception {
        assertThat(signIn(CONSOLE_PASSWORD)).endsWith("/console");
        assertThat(signIn(WRONG_PASSWORD)).endsWith("/console/login?error=true");
        String orderId = createOrder();
        CompletableFuture<HttpResponse<String>> payment = http.sendAsync(post("/api/orders/" + orderId + "/payments",
                "{\"paymentMethodToken\":\"" + PAYMENT_TOKEN + "\"}", paymentKey), HttpResponse.BodyHandlers.ofString());
        awaitTheProviderCharge(orderId);

        Instant sigterm = Instant.now();
        service.toHandle().destroy();

        awaitStatus("/q/health/ready", 503, payment);
        awaitRefused(payment);
        HttpResponse<String> answer = payment.get(PROVIDER_TIMEOUT.toSeconds() + 10, TimeUnit.SECONDS);
        Duration drained = Duration.between(sigterm, Instant.now());

        assertThat(answer.statusCode()).as(answer.body()).isEqualTo(202);
        assertThat(answer.body()).contains("\"status\":\"UNKNOWN\"");
        assertThat(service.waitFor(30, TimeUnit.SECONDS)).as("the process exits after the drain").isTrue();
        String output = Files.readString(log);
        assertThat(output).contains("shutting down: readiness is DOWN")
                .doesNotContain("Timed out waiting for graceful shutdown");
        System.out.printf("GracefulShutdownIT: the payment was answered %d ms after SIGTERM%n", drained.toMillis());

        List<JsonNode> lines = new ArrayList<>();
        for (String line : output.lines().filter(l -> !l.isBlank()).toList()) {
            lines.add(JSON.readTree(line));
        }
        JsonNode unknown = only(lines, "provider outcome unknown");
        assertThat(unknown.path("level").asText()).isEqualTo("WARN");
        assertThat(unknown.at("/mdc/requestId").asText()).isNotBlank();
        assertThat(unknown.at("/mdc/userId").asText()).isEqualTo(user);
        assertThat(unknown.at("/mdc/operation").asText()).isEqualTo("create-payment");
        assertThat(unknown.at("/mdc/idempotencyKey").asText()).isEqualTo(paymentKey);
        assertThat(unknown.at("/mdc/orderId").asText()).isEqualTo(orderId);
        assertThat(unknown.at("/mdc/paymentId").asText()).startsWith("pay_").isEqualTo(answer.body()
                .replaceAll("(?s).*\"paymentId\":\"([^\"]+)\".*", "$1"));
        assertThat(only(lines, "console sign-in of \"ops\" succeeded").path("level").asText()).isEqualTo("INFO");
        assertThat(only(lines, "console sign-in of \"ops\" failed").path("level").asText()).isEqualTo("INFO");
        assertThat(output).doesNotContain(CONSOLE_PASSWORD, WRONG_PASSWORD, SESSION_KEY, TestTokens.SECRET,
                bearer.substring("Bearer ".length()), PAYMENT_TOKEN, "whsec_");
    }

    private static JsonNode only(List<JsonNode> lines, String message) {
        List<JsonNode> matching = lines.stream().filter(l -> l.path("message").asText().contains(message)).toList();
        assertThat(matching).as("log lines with \"%s\"", message).hasSize(1);
        return matching.get(0);
    }

    /** Signs into the console with the form, as ops; returns where it is sent next. */
    private String signIn(String password) throws Exception {
        HttpResponse<Void> answer = http.send(HttpRequest.newBuilder(URI.create(base + "/j_security_check"))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString("j_username=ops&j_password=" + password)).build(),
                HttpResponse.BodyHandlers.discarding());
        assertThat(answer.statusCode()).isEqualTo(302);
        return answer.headers().firstValue("Location").orElseThrow();
    }

    private String createOrder() throws Exception {
        HttpResponse<String> created = http.send(post("/api/orders",
                "{\"items\":[{\"productId\":\"p-184\",\"quantity\":1}],\"currency\":\"RUB\"}", UUID.randomUUID().toString()),
                HttpResponse.BodyHandlers.ofString());
        assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
        return created.body().replaceAll("(?s).*\"orderId\":\"([^\"]+)\".*", "$1");
    }

    /** The sandbox has committed the charge: from here until the provider timeout the payment request is in flight. */
    private void awaitTheProviderCharge(String orderId) {
        await().pollInSameThread().alias("the sandbox took the charge").atMost(PROVIDER_TIMEOUT.minusSeconds(2))
                .pollInterval(Duration.ofMillis(50))
                .until(() -> http.send(HttpRequest.newBuilder(URI.create(base + "/sandbox/v1/payments?orderId=" + orderId))
                        .build(), HttpResponse.BodyHandlers.ofString()).body().contains(orderId));
    }

    private void awaitStatus(String path, int expected, CompletableFuture<?> inFlight) {
        await().pollInSameThread().atMost(PROVIDER_TIMEOUT).pollInterval(Duration.ofMillis(20))
                .failFast(() -> assertThat(inFlight).as("still in flight while waiting for %s to answer %d", path, expected)
                        .isNotDone())
                .until(() -> status(path) == expected);
    }

    /** After the shutdown delay a new request is answered 503, or its connection refused, while the payment runs. */
    private void awaitRefused(CompletableFuture<?> inFlight) {
        await().pollInSameThread().atMost(PROVIDER_TIMEOUT).pollInterval(Duration.ofMillis(50))
                .failFast(() -> assertThat(inFlight).as("still in flight while new requests start to be refused")
                        .isNotDone())
                .until(() -> refusedOrStillServed(status("/api/products")));
        assertThat(inFlight).isNotDone();
    }

    private static boolean refusedOrStillServed(int status) {
        if (status == 503 || status == -1) {
            return true;
        }
        assertThat(status).as("before the delay is over new requests are still served").isEqualTo(401);
        return false;
    }

    private HttpRequest post(String path, String body, String idempotencyKey) {
        return HttpRequest.newBuilder(URI.create(base + path)).header("Authorization", bearer)
                .header("Idempotency-Key", idempotencyKey).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build();
    }

    /** The status of a GET, or -1 when the connection is refused. */
    private int status(String path) throws InterruptedException {
        try {
            return http.send(HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(5)).build(),
                    HttpResponse.BodyHandlers.discarding()).statusCode();
        } catch (IOException refused) {
            return -1;
        }
    }
}
