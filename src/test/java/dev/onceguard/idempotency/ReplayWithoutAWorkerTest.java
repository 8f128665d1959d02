package dev.onceguard.idempotency;

import dev.onceguard.TestTokens;
import dev.onceguard.checkout.OrdersApi;
import io.agroal.api.AgroalDataSource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.restassured.response.Response;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import static dev.onceguard.Database.count;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A replay of a finished record the replica remembers is answered on the event loop: it needs no worker, so it is
 * answered even while every worker waits for the database. Here the replica has two workers, and two new orders hold
 * both, waiting for a lock on the orders table.
 */
@QuarkusTest
@TestProfile(ReplayWithoutAWorkerTest.TwoWorkers.class)
class ReplayWithoutAWorkerTest {

    public static class TwoWorkers implements QuarkusTestProfile {

        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("quarkus.thread-pool.core-threads", "2", "quarkus.thread-pool.max-threads", "2");
        }
    }

    @Inject
    AgroalDataSource db;

    private static Response order(String user, String key) {
        return OrdersApi.createOrder(user, key, OrdersApi.ONE_EBOOK);
    }

    private long ordersWaitingForALock() {
        return count(db, """
                SELECT count(*) FROM pg_stat_activity
                 WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%INSERT INTO orders%'""");
    }

    @Test
    void aRememberedReplayIsAnsweredWhileEveryWorkerWaitsForTheDatabase() throws Exception {
        String user = TestTokens.newUser();
        String key = UUID.randomUUID().toString();
        String orderId = order(user, key).then().statusCode(201).extract().path("orderId");
        order(user, key).then().statusCode(201).header(IdempotentResponse.REPLAYED_HEADER, "true");

        ExecutorService clients = Executors.newFixedThreadPool(2);
        try (Connection lock = db.getConnection()) {
            lock.setAutoCommit(false);
            try (Statement statement = lock.createStatement()) {
                statement.execute("LOCK TABLE orders IN SHARE MODE");
            }
            List<CompletableFuture<Response>> newOrders = List.of(
                    CompletableFuture.supplyAsync(() -> order(user, UUID.randomUUID().toString()), clients),
                    CompletableFuture.supplyAsync(() -> order(user, UUID.randomUUID().toString()), clients));
            Instant deadline = Instant.now().plus(Duration.ofSeconds(10));
            while (ordersWaitingForALock() < 2 && Instant.now().isBefore(deadline)) {
                Thread.sleep(20);
            }
            assertThat(ordersWaitingForALock()).as("both workers wait for the lock").isEqualTo(2);

            Response replay = CompletableFuture.supplyAsync(() -> order(user, key)).get(10, TimeUnit.SECONDS);

            assertThat(replay.statusCode()).isEqualTo(201);
            assertThat(replay.header(IdempotentResponse.REPLAYED_HEADER)).isEqualTo("true");
            assertThat(replay.<String>path("orderId")).isEqualTo(orderId);
            assertThat(newOrders).noneMatch(CompletableFuture::isDone);

            lock.rollback();
            for (CompletableFuture<Response> newOrder : newOrders) {
                assertThat(newOrder.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(201);
            }
        } finally {
            clients.shutdownNow();
        }
    }
}
