package dev.onceguard.webhook;

import io.agroal.api.AgroalDataSource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.restassured.response.Response;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import static dev.onceguard.Database.count;
import static dev.onceguard.webhook.Deliveries.deliver;
import static dev.onceguard.webhook.Deliveries.event;
import static dev.onceguard.webhook.Deliveries.newEventId;
import static dev.onceguard.webhook.Deliveries.orderWithPayment;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Which threads a delivery waits for. Here the replica has two worker threads and writes its delivery log in batches
 * (as in production), and two new events hold both workers, waiting for a lock on the inbox: a duplicate of an event
 * the replica has seen settled is answered on the event loop all the same.
 */
@QuarkusTest
@TestProfile(WebhookRequestThreadsTest.TwoWorkersAndBatchedDeliveryLog.class)
class WebhookRequestThreadsTest {

    public static class TwoWorkersAndBatchedDeliveryLog implements QuarkusTestProfile {

        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("quarkus.thread-pool.max-threads", "2",
                    "onceguard.webhooks.delivery-log.flush-every", "1h",
                    "onceguard.webhooks.lock-timeout", "30s");
        }
    }

    @Inject
    AgroalDataSource db;

    @Test
    void aDuplicateOfASettledEventIsAnsweredWhileEveryWorkerWaitsForTheDatabase() throws Exception {
        Deliveries.Paid settled = orderWithPayment(db, TestPayProvider.NAME, "PENDING");
        String settledEvent = event(newEventId(), "payment.succeeded", settled.providerPaymentId(), "SUCCEEDED");
        assertThat(deliver(settledEvent).<String>path("status")).isEqualTo("processed");

        ExecutorService providers = Executors.newFixedThreadPool(2);
        try (Connection lock = db.getConnection()) {
            lock.setAutoCommit(false);
            try (Statement statement = lock.createStatement()) {
                statement.execute("LOCK TABLE webhook_inbox IN SHARE MODE");
            }
            List<CompletableFuture<Response>> newEvents = List.of(newEventHeldBy(providers), newEventHeldBy(providers));
            await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(20)).untilAsserted(() ->
                    assertThat(waitingFor(lock)).as("both workers wait for the lock").isEqualTo(2));

            Response duplicate = CompletableFuture.supplyAsync(() -> deliver(settledEvent)).get(10, TimeUnit.SECONDS);

            assertThat(duplicate.statusCode()).isEqualTo(200);
            assertThat(duplicate.<String>path("status")).isEqualTo("duplicate");
            assertThat(newEvents).noneMatch(CompletableFuture::isDone);

            lock.rollback();
            for (CompletableFuture<Response> newEvent : newEvents) {
                assertThat(newEvent.get(10, TimeUnit.SECONDS).<String>path("status")).isEqualTo("processed");
            }
        } finally {
            providers.shutdownNow();
        }
    }

    private CompletableFuture<Response> newEventHeldBy(ExecutorService providers) {
        Deliveries.Paid paid = orderWithPayment(db, TestPayProvider.NAME, "PENDING");
        String body = event(newEventId(), "payment.succeeded", paid.providerPaymentId(), "SUCCEEDED");
        return CompletableFuture.supplyAsync(() -> deliver(body), providers);
    }

    private long waitingFor(Connection lock) throws Exception {
        try (Statement statement = lock.createStatement();
             ResultSet pid = statement.executeQuery("SELECT pg_backend_pid()")) {
            pid.next();
            return count(db, "SELECT count(*) FROM pg_stat_activity WHERE ? = ANY(pg_blocking_pids(pid))",
                    pid.getInt(1));
        }
    }
}
