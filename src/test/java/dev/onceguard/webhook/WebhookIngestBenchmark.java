package dev.onceguard.webhook;

import dev.onceguard.platform.StandardWebhooksSignature;
import io.agroal.api.AgroalDataSource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;
import jakarta.inject.Inject;
import org.eclipse.microprofile.config.ConfigProvider;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Webhook ingest throughput of {@code POST /webhooks/sandbox} with Standard Webhooks signatures: new events (each
 * moves a PENDING payment to SUCCEEDED, its order to PAID and writes ORDER_PAID), then the same events again as
 * duplicates. Prints numbers; excluded from the default test run. Run with
 * {@code ./mvnw test -Dtest=WebhookIngestBenchmark -Dgroups=benchmark -DexcludedGroups=none}.
 */
@QuarkusTest
@Tag("benchmark")
class WebhookIngestBenchmark {

    private static final int EVENTS = 4_000;
    private static final int CLIENTS = 8;

    @Inject
    AgroalDataSource db;

    private final HttpClient http = HttpClient.newHttpClient();

    @Test
    void newEventsThenDuplicates() throws Exception {
        List<String> bodies = new ArrayList<>();
        for (int i = 0; i < EVENTS; i++) {
            Deliveries.Paid paid = Deliveries.orderWithPayment(db, "sandbox", "PENDING");
            bodies.add("{\"id\":\"" + Deliveries.newEventId() + "\",\"type\":\"payment.succeeded\",\"created\":\""
                    + Instant.now() + "\",\"data\":{\"object\":{\"id\":\"" + paid.providerPaymentId()
                    + "\",\"status\":\"SUCCEEDED\",\"amount\":\"1500.00\",\"currency\":\"RUB\"}}}");
        }
        String secret = ConfigProvider.getConfig().getValue("onceguard.webhooks.sandbox.secret", String.class);

        double fresh = deliverAll(bodies, secret, "processed");
        double duplicates = deliverAll(bodies, secret, "duplicate");

        System.out.printf("BENCHMARK webhook ingest, %d clients: %.0f new events/s, %.0f duplicate deliveries/s%n",
                CLIENTS, fresh, duplicates);
    }

    private double deliverAll(List<String> bodies, String secret, String expected) throws Exception {
        AtomicInteger next = new AtomicInteger();
        AtomicInteger unexpected = new AtomicInteger();
        CyclicBarrier barrier = new CyclicBarrier(CLIENTS + 1);
        ExecutorService pool = Executors.newFixedThreadPool(CLIENTS);
        List<Future<?>> clients = new ArrayList<>();
        for (int c = 0; c < CLIENTS; c++) {
            clients.add(pool.submit(() -> {
                barrier.await();
                for (int i = next.getAndIncrement(); i < bodies.size(); i = next.getAndIncrement()) {
                    if (!deliver(bodies.get(i), secret).contains("\"" + expected + "\"")) {
                        unexpected.incrementAndGet();
                    }
                }
                return null;
            }));
        }
        barrier.await();
        long start = System.nanoTime();
        for (Future<?> client : clients) {
            client.get();
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        pool.shutdown();
        assertThat(unexpected.get()).as("deliveries not answered %s", expected).isZero();
        return bodies.size() / seconds;
    }

    private String deliver(String body, String secret) throws Exception {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        String id = body.substring(7, body.indexOf('"', 7));
        long timestamp = Instant.now().getEpochSecond();
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://localhost:" + RestAssured.port + "/webhooks/sandbox"))
                .header("Content-Type", "application/json")
                .header(StandardWebhooksSignature.ID, id)
                .header(StandardWebhooksSignature.TIMESTAMP, String.valueOf(timestamp))
                .header(StandardWebhooksSignature.SIGNATURE, StandardWebhooksSignature.sign(id, timestamp, bytes, secret))
                .POST(HttpRequest.BodyPublishers.ofByteArray(bytes)).build();
        return http.send(request, HttpResponse.BodyHandlers.ofString()).body();
    }
}
