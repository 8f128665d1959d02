package dev.onceguard.console;

import io.agroal.api.AgroalDataSource;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.io.BufferedReader;
import java.io.IOException;
import java.net.URI;
import java.net.URL;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Latency of every console page over a production-sized history: seeds the test database with
 * {@code bench/console-seed.sql} (1,000,000 idempotency records, 200,000 inbox events, 100,000 outbox events), warms
 * up, then requests each page {@value #ROUNDS} times as the support user, one request at a time, pages interleaved,
 * and prints p50/p95/max per page against the 300 ms p95 target. Needs {@code psql} on the PATH. Excluded from the
 * default test run; run with
 * {@code ./mvnw test -Dtest=ConsolePagesBenchmark -Dgroups=benchmark -DexcludedGroups=none}.
 */
@QuarkusTest
@TestProfile(ConsolePagesBenchmark.QuietService.class)
@Tag("benchmark")
class ConsolePagesBenchmark {

    private static final int WARM_UP_ROUNDS = 10;
    private static final int ROUNDS = 50;
    private static final long TARGET_P95_MILLIS = 300;
    private static final Pattern NEXT_PAGE = Pattern.compile("<a rel=\"next\" href=\"([^\"]+)\"");

    /** Nothing but the measured requests touches the seeded data: the outbox relay stays off, logging at INFO. */
    public static class QuietService implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("onceguard.jobs.outbox-relay.every", "off",
                    "quarkus.log.category.\"dev.onceguard\".level", "INFO");
        }
    }

    @Inject
    AgroalDataSource db;

    @ConfigProperty(name = "quarkus.datasource.jdbc.url")
    String jdbcUrl;

    @ConfigProperty(name = "quarkus.datasource.username")
    String dbUser;

    @ConfigProperty(name = "quarkus.datasource.password")
    Optional<String> dbPassword;

    @TestHTTPResource("/")
    URL root;

    private final HttpClient http = HttpClient.newHttpClient();
    private final String support = "Basic " + Base64.getEncoder()
            .encodeToString("support:support-password".getBytes(StandardCharsets.UTF_8));

    @Test
    void everyConsolePageOverAMillionOperations() throws Exception {
        seed();
        Map<String, String> pages = pagesToMeasure();

        String loadBefore = loadAverage();
        for (int round = 0; round < WARM_UP_ROUNDS; round++) {
            for (String path : pages.values()) {
                timedGet(path);
            }
        }
        Map<String, List<Long>> micros = new LinkedHashMap<>();
        pages.keySet().forEach(name -> micros.put(name, new ArrayList<>()));
        for (int round = 0; round < ROUNDS; round++) {
            for (Map.Entry<String, String> page : pages.entrySet()) {
                micros.get(page.getKey()).add(timedGet(page.getValue()));
            }
        }
        String loadAfter = loadAverage();

        StringBuilder table = new StringBuilder(String.format("%n%-34s %8s %8s %8s%n", "page", "p50 ms", "p95 ms", "max ms"));
        List<String> missed = new ArrayList<>();
        micros.forEach((name, samples) -> {
            List<Long> sorted = samples.stream().sorted().toList();
            double p95 = percentile(sorted, 95);
            table.append(String.format("%-34s %8.1f %8.1f %8.1f%n", name, percentile(sorted, 50), p95,
                    sorted.get(sorted.size() - 1) / 1000.0));
            if (p95 > TARGET_P95_MILLIS) {
                missed.add(name);
            }
        });
        table.append(String.format("%d requests per page after %d warm-up rounds; load average %s before, %s after%n",
                ROUNDS, WARM_UP_ROUNDS, loadBefore, loadAfter));
        table.append(missed.isEmpty() ? "every page under " + TARGET_P95_MILLIS + " ms at p95"
                : "over " + TARGET_P95_MILLIS + " ms at p95: " + String.join(", ", missed));
        System.out.println("BENCHMARK console pages" + table);
    }

    /** Runs the seeding script with psql against the test database (which the test profile cleaned and migrated). */
    private void seed() throws IOException, InterruptedException {
        URI database = URI.create(jdbcUrl.substring("jdbc:".length()));
        ProcessBuilder psql = new ProcessBuilder("psql", "-X", "-h", database.getHost(),
                "-p", String.valueOf(database.getPort() < 0 ? 5432 : database.getPort()), "-U", dbUser,
                "-d", database.getPath().substring(1), "-f", Path.of("bench", "console-seed.sql").toString())
                .redirectErrorStream(true);
        dbPassword.ifPresent(password -> psql.environment().put("PGPASSWORD", password));
        Process seeding = psql.start();
        try (BufferedReader output = seeding.inputReader()) {
            output.lines().forEach(line -> System.out.println("SEED " + line));
        }
        assertThat(seeding.waitFor()).as("psql -f bench/console-seed.sql exit status").isZero();
    }

    /**
     * Each page the console has, with the ids a support user would arrive with: a key from the middle of the month,
     * the user with the most operations, a fulfilled order's operation that was retried, and the operations list's
     * second page as its "Older records" link gives it.
     */
    private Map<String, String> pagesToMeasure() throws Exception {
        String key = single("SELECT idempotency_key FROM idempotency_records ORDER BY id OFFSET (SELECT count(*) / 2 FROM idempotency_records) LIMIT 1");
        String busiestUser = single("SELECT user_id FROM idempotency_records GROUP BY user_id ORDER BY count(*) DESC LIMIT 1");
        String retriedAndFulfilled = single("""
                SELECT r.id FROM idempotency_records r JOIN orders o ON o.order_id = r.resource_id
                 WHERE r.operation = 'create-order' AND r.replay_count > 0 AND o.status = 'FULFILLED'
                 ORDER BY r.id DESC LIMIT 1""");
        String user = URLEncoder.encode(busiestUser, StandardCharsets.UTF_8);
        String orderId = single("SELECT order_id FROM orders ORDER BY order_id OFFSET (SELECT count(*) / 3 FROM orders) LIMIT 1");
        String providerPaymentId = single("""
                SELECT provider_payment_id FROM payments WHERE provider_payment_id IS NOT NULL
                 ORDER BY payment_id OFFSET (SELECT count(*) / 2 FROM payments) LIMIT 1""");
        String replayRequestId = single("SELECT request_id FROM idempotency_request_log WHERE outcome = 'REPLAYED' ORDER BY id DESC LIMIT 1");
        String eventId = single("SELECT event_id FROM webhook_inbox ORDER BY id OFFSET (SELECT count(*) / 2 FROM webhook_inbox) LIMIT 1");
        String redeliveredEvent = single("SELECT id FROM webhook_inbox WHERE delivery_count > 1 ORDER BY id DESC LIMIT 1");

        Map<String, String> pages = new LinkedHashMap<>();
        pages.put("overview", "/console");
        pages.put("operations", "/console/operations");
        pages.put("operations?key=", "/console/operations?key=" + URLEncoder.encode(key, StandardCharsets.UTF_8));
        pages.put("operations?user= (busiest)", "/console/operations?user=" + user);
        pages.put("operations?status=FAILED", "/console/operations?status=FAILED");
        pages.put("operations, second page", secondPageOf("/console/operations"));
        pages.put("operation detail", "/console/operations/" + retriedAndFulfilled);
        pages.put("user view (busiest)", "/console/users/" + user);
        pages.put("stuck", "/console/stuck");
        pages.put("webhooks", "/console/webhooks");
        pages.put("webhooks?status=FAILED", "/console/webhooks?status=FAILED");
        pages.put("conflicts", "/console/conflicts");
        pages.put("outbox?status=DEAD", "/console/outbox?status=DEAD");
        pages.put("jobs", "/console/jobs");
        pages.put("audit", "/console/audit");
        pages.put("search: order id", "/console/search?q=" + orderId);
        pages.put("search: provider payment id prefix", "/console/search?q="
                + providerPaymentId.substring(0, providerPaymentId.length() - 4));
        pages.put("search: a retry's request id", "/console/search?q=" + replayRequestId);
        pages.put("search: webhook event id", "/console/search?q=" + eventId);
        pages.put("search: idempotency key", "/console/search?q=" + URLEncoder.encode(key, StandardCharsets.UTF_8));
        pages.put("search: 6-character prefix (many)", "/console/search?q=user-0");
        pages.put("requests?outcome=REPLAYED (24 h)", "/console/requests?outcome=REPLAYED&from="
                + java.time.Instant.now().minus(java.time.Duration.ofHours(24)).truncatedTo(java.time.temporal.ChronoUnit.HOURS));
        pages.put("payments?status=UNKNOWN", "/console/payments?status=UNKNOWN");
        pages.put("webhook event", "/console/webhooks/" + redeliveredEvent);
        return pages;
    }

    private String secondPageOf(String path) throws Exception {
        Matcher next = NEXT_PAGE.matcher(get(path).body());
        assertThat(next.find()).as("an \"Older records\" link on " + path).isTrue();
        return next.group(1).replace("&amp;", "&");
    }

    /**
     * One GET as the support user, checked to be a whole page (or the search's 303 to the one thing it found);
     * returns its latency in microseconds.
     */
    private long timedGet(String path) throws Exception {
        long started = System.nanoTime();
        HttpResponse<String> response = get(path);
        long micros = (System.nanoTime() - started) / 1000;
        if (path.startsWith("/console/search") && response.statusCode() == 303) {
            return micros;
        }
        assertThat(response.statusCode()).as(path).isEqualTo(200);
        assertThat(response.body()).as(path).contains("</html>");
        return micros;
    }

    private HttpResponse<String> get(String path) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create(root.toString()).resolve(path))
                .header("Authorization", support).GET().build();
        return http.send(request, HttpResponse.BodyHandlers.ofString());
    }

    private String single(String sql) throws SQLException {
        try (Connection connection = db.getConnection(); Statement statement = connection.createStatement();
             ResultSet row = statement.executeQuery(sql)) {
            assertThat(row.next()).as(sql).isTrue();
            return row.getString(1);
        }
    }

    private static double percentile(List<Long> sortedMicros, int percent) {
        int index = (int) Math.ceil(percent / 100.0 * sortedMicros.size()) - 1;
        return sortedMicros.get(Math.max(0, index)) / 1000.0;
    }

    private static String loadAverage() throws IOException {
        String[] fields = Files.readString(Path.of("/proc/loadavg")).split(" ");
        return fields[0] + " " + fields[1] + " " + fields[2];
    }
}
