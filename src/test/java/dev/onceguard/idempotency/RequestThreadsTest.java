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
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static dev.onceguard.Database.count;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Which threads a request waits for. Here the replica runs local operations on two threads of their own, and new
 * orders hold them, waiting for a lock on the orders table: a replay of a finished record the replica remembers is
 * answered on the event loop all the same, a third new order waits for a thread (not for the lock), and a request
 * served by Quarkus's worker pool is answered at once.
 */
@QuarkusTest
@TestProfile(RequestThreadsTest.TwoLocalOperationThreads.class)
class RequestThreadsTest {

    public static class TwoLocalOperationThreads implements QuarkusTestProfile {

        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("onceguard.idempotency.local-operation-threads", "2");
        }
    }

    @Inject
    AgroalDataSource db;

    private static Response order(String user, String key) {
        return OrdersApi.createOrder(user, key, OrdersApi.ONE_EBOOK);
    }

    /** Holds both local operation threads with a new order each, waiting for a lock on the orders table. */
    private List<CompletableFuture<Response>> twoOrdersWaitingForALock(Connection lock, String user,
                                                                       ExecutorService clients) throws Exception {
        lock.setAutoCommit(false);
        try (Statement statement = lock.createStatement()) {
            statement.execute("LOCK TABLE orders IN SHARE MODE");
        }
        List<CompletableFuture<Response>> newOrders = List.of(
                CompletableFuture.supplyAsync(() -> order(user, UUID.randomUUID().toString()), clients),
                CompletableFuture.supplyAsync(() -> order(user, UUID.randomUUID().toString()), clients));
        await().pollInSameThread()
                .atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(20)).untilAsserted(() ->
                assertThat(waitingFor(lock)).as("both threads wait for the lock").isEqualTo(2));
        return newOrders;
    }

    /** Local operations waiting for one of their threads, as the worker pool's metrics say. */
    private static double localOperationsQueued() {
        String metrics = given().get("/q/metrics").then().statusCode(200).extract().asString();
        Matcher queued = Pattern.compile("^worker_pool_queue_size\\{pool_name=\"local-operation\",[^}]*\\} (\\S+)$",
                Pattern.MULTILINE).matcher(metrics);
        assertThat(queued.find()).as("the local operation threads' queue is measured").isTrue();
        return Double.parseDouble(queued.group(1));
    }

    /**
     * The sessions the lock's holder blocks: by process id, since a new order's one statement is longer than the
     * statement text PostgreSQL's activity view keeps.
     */
    private long waitingFor(Connection lock) throws SQLException {
        long holder;
        try (Statement statement = lock.createStatement();
             ResultSet pid = statement.executeQuery("SELECT pg_backend_pid()")) {
            pid.next();
            holder = pid.getLong(1);
        }
        return count(db, "SELECT count(*) FROM pg_stat_activity WHERE ? = ANY(pg_blocking_pids(pid))", (int) holder);
    }

    @Test
    void aRememberedReplayIsAnsweredWhileEveryLocalOperationThreadWaitsForTheDatabase() throws Exception {
        String user = TestTokens.newUser();
        String key = UUID.randomUUID().toString();
        String orderId = order(user, key).then().statusCode(201).extract().path("orderId");
        order(user, key).then().statusCode(201).header(IdempotentResponse.REPLAYED_HEADER, "true");

        ExecutorService clients = Executors.newFixedThreadPool(2);
        try (Connection lock = db.getConnection()) {
            List<CompletableFuture<Response>> newOrders = twoOrdersWaitingForALock(lock, user, clients);

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

    @Test
    void aNewOrderBeyondTheLocalOperationThreadsWaitsForOneAndOtherRequestsDoNot() throws Exception {
        String user = TestTokens.newUser();
        ExecutorService clients = Executors.newFixedThreadPool(3);
        try (Connection lock = db.getConnection()) {
            List<CompletableFuture<Response>> newOrders = twoOrdersWaitingForALock(lock, user, clients);
            CompletableFuture<Response> third = CompletableFuture.supplyAsync(
                    () -> order(user, UUID.randomUUID().toString()), clients);

            await().pollInSameThread()
                    .atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(20)).untilAsserted(() ->
                    assertThat(localOperationsQueued()).as("the third order waits for a thread").isEqualTo(1));
            assertThat(waitingFor(lock)).as("not for the lock").isEqualTo(2);

            Response list = CompletableFuture.supplyAsync(() -> given().header("Authorization", TestTokens.bearer(user))
                    .get("/api/orders")).get(10, TimeUnit.SECONDS);

            assertThat(list.statusCode()).isEqualTo(200);
            assertThat(third).isNotDone();

            lock.rollback();
            assertThat(third.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(201);
            for (CompletableFuture<Response> newOrder : newOrders) {
                assertThat(newOrder.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(201);
            }
            assertThat(count(db, "SELECT count(*) FROM orders WHERE user_id = ?", user)).isEqualTo(3);
        } finally {
            clients.shutdownNow();
        }
    }
}
