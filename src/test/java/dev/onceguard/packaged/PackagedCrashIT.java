package dev.onceguard.packaged;

import dev.onceguard.TestTokens;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Base64;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The crash the console must not tell as a clean success: the packaged service is SIGKILLed while the sandbox holds
 * a committed charge and the client still waits for its answer; the service is started again, lease recovery asks
 * the sandbox and finishes the payment. The payment's page and its order's page then name that path (the process
 * died before answering, lease recovery's run, linked), list the killed request by its id as without an answer, and
 * count one charge. The restarted service delivers no sandbox webhooks, so lease recovery, not the webhook, is what
 * finishes the payment (the webhook's path has its own test in the suite).
 */
class PackagedCrashIT {

    private static final Duration READY_WITHIN = Duration.ofSeconds(120);
    private static final String DIED = "The process died before answering; lease recovery (run ";

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private Process service;

    @Test
    void aPaymentWhoseProcessWasKilledBeforeAnsweringIsFinishedByLeaseRecoveryAndItsPagesSaySo() throws Exception {
        Assumptions.assumeFalse(PackagedJar.onlyNativePackaged(),
                "PackagedCrashIT kills and restarts the JVM jar; a native build (-Pnative) packages none");
        int port = PackagedJar.freePort();
        Map<String, String> settings = new HashMap<>(new PackagedArtifact().start());
        settings.put("quarkus.http.port", String.valueOf(port));
        settings.put("onceguard.idempotency.lease", "8s");
        settings.put("onceguard.jobs.lease-recovery.every", "1s");
        settings.put("onceguard.jobs.reconciliation.every", "off");
        String database = settings.get("quarkus.datasource.jdbc.url");
        service = start(settings, "packaged-crash-it-before.log", port);

        String user = TestTokens.newUser();
        String orderId = field(created(post(port, "/api/orders", user, UUID.randomUUID().toString(),
                "{\"items\":[{\"productId\":\"it-handbook\",\"quantity\":1}],\"currency\":\"EUR\"}")), "orderId");
        String paymentKey = UUID.randomUUID().toString();
        String clientRequestId = "req-killed-" + UUID.randomUUID();
        CompletableFuture<HttpResponse<String>> answer = http.sendAsync(
                post(port, "/api/orders/" + orderId + "/payments", user, paymentKey,
                        "{\"paymentMethodToken\":\"tok_timeout_after_commit\"}").header("X-Request-Id", clientRequestId).build(),
                HttpResponse.BodyHandlers.ofString());
        await().alias("the sandbox holds the committed charge").atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(20)).pollInSameThread()
                .until(() -> count(database, "SELECT count(*) FROM sandbox_payments WHERE order_id = ?", orderId) == 1);

        service.destroyForcibly().waitFor();
        assertThat(answer).as("the client got no answer").failsWithin(Duration.ofSeconds(10));
        long recordId = count(database, "SELECT id FROM idempotency_records WHERE user_id = ? AND idempotency_key = ?",
                user, paymentKey);

        settings.put("quarkus.flyway.clean-at-start", "false");
        settings.put("onceguard.sandbox.delivery-every", "off");
        service = start(settings, "packaged-crash-it-after.log", port);
        await().alias("lease recovery finishes the payment").atMost(Duration.ofSeconds(90))
                .pollInterval(Duration.ofMillis(250)).pollInSameThread()
                .until(() -> count(database, "SELECT count(*) FROM idempotency_records WHERE id = ? "
                        + "AND finished_by = 'lease_recovery'", recordId) == 1);

        String recordedRequestId = text(database, "SELECT request_id FROM idempotency_records WHERE id = ?", recordId);
        String operationPage = console(port, "/console/operations/" + recordId);
        assertThat(operationPage).contains(DIED).contains("href=\"/console/jobs?job=lease-recovery\"")
                .contains(recordedRequestId).contains(clientRequestId).contains("no answer recorded")
                .doesNotContain("sent once");
        String orderPage = console(port, "/console/orders/" + orderId);
        assertThat(orderPage).contains("href=\"/console/jobs?job=lease-recovery\"")
                .contains(recordedRequestId).contains(clientRequestId).contains("no answer recorded");
        assertThat(firstVerdict(orderPage)).as("the order page's worst verdict, first: the payment's, not the order's"
                + " clean creation").startsWith("<article class=\"verdict warn\"").contains(DIED);
        assertThat(text(database, "SELECT client_request_id FROM idempotency_records WHERE id = ?", recordId))
                .as("the killed request is found by the X-Request-Id its client sent").isEqualTo(clientRequestId);
        assertThat(count(database, "SELECT count(*) FROM sandbox_payments WHERE order_id = ?", orderId)).isEqualTo(1);
        assertThat(count(database, "SELECT count(*) FROM payments WHERE order_id = ? AND status = 'SUCCEEDED'", orderId))
                .isEqualTo(1);
    }

    @AfterEach
    void stop() {
        if (service != null) {
            service.destroyForcibly();
        }
    }

    private Process start(Map<String, String> settings, String logName, int port) throws Exception {
        Path log = Path.of("target", logName);
        Process started = PackagedJar.start(log, settings, Map.of("QUARKUS_LOG_CONSOLE_JSON_ENABLED", "false"));
        await().alias("the service is ready").atMost(READY_WITHIN).pollInterval(Duration.ofMillis(250))
                .pollInSameThread().until(() -> {
                    assertThat(started.isAlive()).as("the service runs\n" + Files.readString(log)).isTrue();
                    return readiness(port) == 200;
                });
        return started;
    }

    private int readiness(int port) throws InterruptedException {
        try {
            return http.send(HttpRequest.newBuilder(URI.create(base(port) + "/q/health/ready"))
                    .timeout(Duration.ofSeconds(3)).build(), HttpResponse.BodyHandlers.discarding()).statusCode();
        } catch (IOException notYet) {
            return 0;
        }
    }

    private static String base(int port) {
        return "http://localhost:" + port;
    }

    private static HttpRequest.Builder post(int port, String path, String user, String key, String body) {
        return HttpRequest.newBuilder(URI.create(base(port) + path))
                .header("Authorization", TestTokens.bearer(user)).header("Idempotency-Key", key)
                .header("Content-Type", "application/json").timeout(Duration.ofSeconds(30))
                .POST(HttpRequest.BodyPublishers.ofString(body));
    }

    private String created(HttpRequest.Builder request) throws Exception {
        HttpResponse<String> response = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as(response.body()).isEqualTo(201);
        return response.body();
    }

    private String console(int port, String path) throws Exception {
        String basic = Base64.getEncoder().encodeToString(
                (PackagedArtifact.ADMIN + ":" + PackagedArtifact.ADMIN_PASSWORD).getBytes(StandardCharsets.UTF_8));
        HttpResponse<String> page = http.send(HttpRequest.newBuilder(URI.create(base(port) + path))
                .header("Authorization", "Basic " + basic).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(page.statusCode()).as(path).isEqualTo(200);
        return page.body();
    }

    private static String firstVerdict(String html) {
        int start = html.indexOf("<article class=\"verdict");
        assertThat(start).as("a verdict on the page").isNotNegative();
        return html.substring(start, html.indexOf("</article>", start));
    }

    private static String field(String json, String name) {
        Matcher value = Pattern.compile("\"" + name + "\"\\s*:\\s*\"([^\"]+)\"").matcher(json);
        assertThat(value.find()).as(name + " in " + json).isTrue();
        return value.group(1);
    }

    private static long count(String database, String sql, Object... parameters) throws SQLException {
        return Long.parseLong(Optional.ofNullable(text(database, sql, parameters)).orElse("0"));
    }

    private static String text(String database, String sql, Object... parameters) throws SQLException {
        try (Connection connection = DriverManager.getConnection(database, "postgres", "");
             var statement = connection.prepareStatement(sql)) {
            for (int i = 0; i < parameters.length; i++) {
                statement.setObject(i + 1, parameters[i]);
            }
            try (ResultSet rows = statement.executeQuery()) {
                return rows.next() ? rows.getString(1) : null;
            }
        }
    }
}
