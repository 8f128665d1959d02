package dev.onceguard.checkout;

import dev.onceguard.TestTokens;
import dev.onceguard.idempotency.RequestLog;
import io.agroal.api.AgroalDataSource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;
import io.restassured.response.Response;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static dev.onceguard.Database.count;
import static dev.onceguard.Database.execute;
import static dev.onceguard.checkout.OrdersApi.ONE_EBOOK;
import static dev.onceguard.checkout.OrdersApi.TWO_EBOOKS;
import static dev.onceguard.checkout.OrdersApi.createOrder;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Order creation under one key, against real PostgreSQL: a key sent twice or fifty times at once gives one order, a
 * retry after a lost response gives the same order, the key with another payload is refused and creates nothing, and
 * a new key is a deliberate second purchase.
 */
@QuarkusTest
class OrderIdempotencyTest {

    @Inject
    AgroalDataSource db;

    @Inject
    RequestLog requestLog;

    private long ordersOf(String userId) {
        return count(db, "SELECT count(*) FROM orders WHERE user_id = ?", userId);
    }

    @Test
    void scenario1_oneKeySentTwiceGivesOneOrderAndAByteIdenticalReplay() {
        String user = TestTokens.newUser();
        String key = UUID.randomUUID().toString();

        Response first = createOrder(user, key, ONE_EBOOK);
        Response second = createOrder(user, key, ONE_EBOOK);

        assertThat(first.statusCode()).isEqualTo(201);
        assertThat(first.header("Idempotent-Replayed")).isNull();
        assertThat(second.statusCode()).isEqualTo(201);
        assertThat(second.header("Idempotent-Replayed")).isEqualTo("true");
        assertThat(second.asByteArray()).isEqualTo(first.asByteArray());
        assertThat(second.header("Location")).isEqualTo(first.header("Location"))
                .isEqualTo("/api/orders/" + first.path("orderId"));
        assertThat(ordersOf(user)).isEqualTo(1);
        requestLog.flush();
        assertThat(count(db, "SELECT replay_count FROM idempotency_records WHERE user_id = ?", user)).isEqualTo(1);
    }

    @Test
    void scenario2_fiftyRequestsWithOneKeyAtTheSameMomentGiveOneOrder() throws Exception {
        String user = TestTokens.newUser();
        String key = UUID.randomUUID().toString();
        int clients = 50;
        CyclicBarrier barrier = new CyclicBarrier(clients);
        ExecutorService pool = Executors.newFixedThreadPool(clients);
        List<Future<Response>> answers = new ArrayList<>();
        for (int i = 0; i < clients; i++) {
            answers.add(pool.submit(() -> {
                barrier.await();
                return createOrder(user, key, ONE_EBOOK);
            }));
        }
        Set<String> orderIds = new HashSet<>();
        int created = 0;
        for (Future<Response> answer : answers) {
            Response response = answer.get();
            if (response.statusCode() == 409) {
                assertThat(response.<String>path("code")).isEqualTo("OPERATION_IN_PROGRESS");
                continue;
            }
            assertThat(response.statusCode()).isEqualTo(201);
            orderIds.add(response.path("orderId"));
            if (response.header("Idempotent-Replayed") == null) {
                created++;
            }
        }
        pool.shutdown();

        assertThat(orderIds).hasSize(1);
        assertThat(created).isEqualTo(1);
        assertThat(ordersOf(user)).isEqualTo(1);
    }

    @Test
    void scenario3_responseLostAfterCommitThenRetryGivesTheSameOrder() throws Exception {
        String user = TestTokens.newUser();
        String key = UUID.randomUUID().toString();
        byte[] body = ONE_EBOOK.getBytes(StandardCharsets.UTF_8);
        try (Socket socket = new Socket("localhost", RestAssured.port)) {
            OutputStream out = socket.getOutputStream();
            out.write(("POST /api/orders HTTP/1.1\r\nHost: localhost\r\n"
                    + "Authorization: " + TestTokens.bearer(user) + "\r\n"
                    + "Idempotency-Key: " + key + "\r\n"
                    + "Content-Type: application/json\r\n"
                    + "Content-Length: " + body.length + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            out.write(body);
            out.flush();
            awaitCommittedRecord(user, key);
        }

        Response retry = createOrder(user, key, ONE_EBOOK);

        assertThat(retry.statusCode()).isEqualTo(201);
        assertThat(retry.header("Idempotent-Replayed")).isEqualTo("true");
        assertThat(count(db, "SELECT count(*) FROM orders WHERE user_id = ? AND order_id = ?", user,
                retry.<String>path("orderId"))).isEqualTo(1);
        assertThat(ordersOf(user)).isEqualTo(1);
    }

    private void awaitCommittedRecord(String user, String key) {
        await().pollInSameThread().alias("the abandoned request commits its order").atMost(Duration.ofSeconds(10))
                .pollInterval(Duration.ofMillis(20))
                .until(() -> count(db, "SELECT count(*) FROM idempotency_records WHERE user_id = ? AND idempotency_key = ? "
                        + "AND status = 'COMPLETED'", user, key) > 0);
    }

    @Test
    void scenario4_oneKeyAnotherPayloadIsRefusedAndRecordedAsAConflict() {
        String user = TestTokens.newUser();
        String key = UUID.randomUUID().toString();
        createOrder(user, key, ONE_EBOOK).then().statusCode(201);

        Response reused = createOrder(user, key, TWO_EBOOKS);

        assertThat(reused.statusCode()).isEqualTo(422);
        assertThat(reused.contentType()).startsWith("application/problem+json");
        assertThat(reused.<String>path("code")).isEqualTo("IDEMPOTENCY_KEY_REUSED");
        assertThat(ordersOf(user)).isEqualTo(1);
        assertThat(count(db, "SELECT count(*) FROM idempotency_conflicts c JOIN idempotency_records r "
                + "ON r.id = c.record_id WHERE c.user_id = ? AND c.idempotency_key = ? "
                + "AND c.original_fingerprint = r.fingerprint AND c.conflicting_fingerprint <> r.fingerprint",
                user, key)).isEqualTo(1);
    }

    @Test
    void aRetryGetsItsFirstAnswerWhereTheCatalogWouldRefuseTheRequestToday() {
        String productId = "p-test-" + UUID.randomUUID();
        execute(db, "INSERT INTO products (product_id, name, kind, price, currency, stock) "
                + "VALUES (?, 'Test e-book', 'DIGITAL', 100.00, 'RUB', NULL)", productId);
        String cart = "{\"items\":[{\"productId\":\"" + productId + "\",\"quantity\":1}],\"currency\":\"RUB\"}";
        String user = TestTokens.newUser();
        String key = UUID.randomUUID().toString();
        Response first = createOrder(user, key, cart);
        assertThat(first.statusCode()).isEqualTo(201);

        execute(db, "UPDATE products SET currency = 'EUR' WHERE product_id = ?", productId);
        Response newRequest = createOrder(user, UUID.randomUUID().toString(), cart);
        Response retry = createOrder(user, key, cart);
        Response reuse = createOrder(user, key,
                "{\"items\":[{\"productId\":\"p-unknown\",\"quantity\":1}],\"currency\":\"RUB\"}");

        assertThat(newRequest.statusCode()).as("the same cart under a new key, against today's catalog").isEqualTo(400);
        assertThat(retry.statusCode()).isEqualTo(201);
        assertThat(retry.header("Idempotent-Replayed")).isEqualTo("true");
        assertThat(retry.asByteArray()).isEqualTo(first.asByteArray());
        assertThat(reuse.statusCode()).as("the key with another cart, which names no product").isEqualTo(422);
        assertThat(reuse.<String>path("code")).isEqualTo("IDEMPOTENCY_KEY_REUSED");
        assertThat(ordersOf(user)).isEqualTo(1);
    }

    @Test
    void theRecordsTimesFrameItsOrderSoTheConsoleTellsTheStoryInOrder() {
        String user = TestTokens.newUser();
        createOrder(user, UUID.randomUUID().toString(), ONE_EBOOK).then().statusCode(201);

        assertThat(count(db, """
                SELECT count(*) FROM idempotency_records r JOIN orders o ON o.idempotency_record_id = r.id
                 WHERE r.user_id = ? AND r.created_at <= o.created_at AND o.created_at <= r.completed_at""", user))
                .as("claimed, then the order made, then the answer stored").isEqualTo(1);
    }

    @Test
    void scenario10_aNewKeyIsADeliberateSecondPurchase() {
        String user = TestTokens.newUser();

        String first = createOrder(user, UUID.randomUUID().toString(), ONE_EBOOK).then().statusCode(201)
                .extract().path("orderId");
        String second = createOrder(user, UUID.randomUUID().toString(), ONE_EBOOK).then().statusCode(201)
                .extract().path("orderId");

        assertThat(second).isNotEqualTo(first);
        assertThat(ordersOf(user)).isEqualTo(2);
    }

    @Test
    void oneKeyFromTwoUsersNamesTwoOperations() {
        String key = UUID.randomUUID().toString();
        String alice = TestTokens.newUser();
        String bob = TestTokens.newUser();

        String aliceOrder = createOrder(alice, key, ONE_EBOOK).then().statusCode(201).extract().path("orderId");
        Response bobs = createOrder(bob, key, ONE_EBOOK);

        assertThat(bobs.statusCode()).isEqualTo(201);
        assertThat(bobs.header("Idempotent-Replayed")).isNull();
        assertThat(bobs.<String>path("orderId")).isNotEqualTo(aliceOrder);
    }

    @Test
    void reorderedKeysAndOtherWhitespaceAreTheSameRequest() {
        String user = TestTokens.newUser();
        String key = UUID.randomUUID().toString();
        Response first = createOrder(user, key, TWO_EBOOKS);

        Response reordered = createOrder(user, key,
                "{\n  \"currency\" : \"RUB\",\n  \"items\" : [ { \"quantity\" : 2 , \"productId\" : \"p-184\" } ]\n}\n");

        assertThat(reordered.statusCode()).isEqualTo(201);
        assertThat(reordered.header("Idempotent-Replayed")).isEqualTo("true");
        assertThat(reordered.asByteArray()).isEqualTo(first.asByteArray());
    }

    @Test
    void aQuotedKeyIsTheBareKey() {
        String user = TestTokens.newUser();
        String key = UUID.randomUUID().toString();
        Response bare = createOrder(user, key, ONE_EBOOK);

        Response quoted = createOrder(user, "\"" + key + "\"", ONE_EBOOK);

        assertThat(quoted.header("Idempotent-Replayed")).isEqualTo("true");
        assertThat(quoted.<String>path("orderId")).isEqualTo(bare.path("orderId"));
    }

    @Test
    void theServicesRequestIdIsAnsweredAndKeptOnTheRecordBesideTheClients() {
        String user = TestTokens.newUser();
        String key = UUID.randomUUID().toString();
        String clientRequestId = "req-" + UUID.randomUUID();

        Response response = given().header("Authorization", TestTokens.bearer(user)).header("Idempotency-Key", key)
                .header("X-Request-Id", clientRequestId).contentType("application/json").body(ONE_EBOOK)
                .post("/api/orders");

        String requestId = response.header("X-Request-Id");
        assertThat(UUID.fromString(requestId).version()).as("the service's own id").isEqualTo(7);
        assertThat(response.header("X-Client-Request-Id")).isEqualTo(clientRequestId);
        assertThat(count(db, "SELECT count(*) FROM idempotency_records WHERE user_id = ? AND request_id = ? "
                + "AND client_request_id = ? AND resource_type = 'order' AND resource_id = ?", user, requestId,
                clientRequestId, response.<String>path("orderId"))).isEqualTo(1);
        assertThat(count(db, "SELECT count(*) FROM orders WHERE user_id = ? AND request_id = ?", user, requestId))
                .isEqualTo(1);
    }

    @Test
    void anUnusableClientRequestIdIsIgnored() {
        for (String unusable : new String[] {"two words", "x".repeat(129), "caf\u00e9", ""}) {
            Response response = given().header("X-Request-Id", unusable).get("/api/products");

            assertThat(response.header("X-Request-Id")).as(unusable).isNotEqualTo(unusable);
            assertThat(UUID.fromString(response.header("X-Request-Id")).version()).isEqualTo(7);
            assertThat(response.header("X-Client-Request-Id")).as(unusable).isNull();
        }
    }

    @Test
    void aClientIdSentUnderTheHeaderTheServiceSetsForItsResourcesIsDropped() {
        String user = TestTokens.newUser();

        Response response = given().header("Authorization", TestTokens.bearer(user))
                .header("Idempotency-Key", UUID.randomUUID().toString()).header("X-Client-Request-Id", "forged")
                .contentType("application/json").body(ONE_EBOOK).post("/api/orders");

        assertThat(response.statusCode()).isEqualTo(201);
        assertThat(response.header("X-Client-Request-Id")).isNull();
        assertThat(count(db, "SELECT count(*) FROM idempotency_records WHERE user_id = ? AND client_request_id IS NULL",
                user)).isEqualTo(1);
    }

    @Test
    void aGeneratedRequestIdIsAVersionSevenUuidOfTheMomentItWasMade() {
        long before = System.currentTimeMillis();
        UUID first = UUID.fromString(given().get("/api/products").header("X-Request-Id"));
        UUID second = UUID.fromString(given().get("/api/products").header("X-Request-Id"));
        long after = System.currentTimeMillis();

        assertThat(List.of(first.version(), first.variant(), second.version(), second.variant()))
                .containsExactly(7, 2, 7, 2);
        assertThat(first.getMostSignificantBits() >>> 16).isBetween(before, after);
        assertThat(second.getMostSignificantBits() >>> 16).isBetween(first.getMostSignificantBits() >>> 16, after);
    }

    @Test
    void ordersAreReadBackByTheirOwnerOnly() {
        String owner = TestTokens.newUser();
        Response created = createOrder(owner, UUID.randomUUID().toString(), TWO_EBOOKS);
        String orderId = created.path("orderId");

        OrdersApi.getOrder(owner, orderId).then().statusCode(200);
        assertThat(OrdersApi.getOrder(owner, orderId).<String>path("total")).isEqualTo("3000.00");
        Response stranger = OrdersApi.getOrder(TestTokens.newUser(), orderId);
        Response unknown = OrdersApi.getOrder(owner, "ord_unknown");

        assertThat(stranger.statusCode()).isEqualTo(404);
        assertThat(unknown.statusCode()).isEqualTo(404);
        assertThat(stranger.asString()).isEqualTo(unknown.asString());
    }

    @Test
    void theOrderListIsNewestFirstInKeysetPages() {
        String user = TestTokens.newUser();
        List<String> created = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            created.add(createOrder(user, UUID.randomUUID().toString(), ONE_EBOOK).path("orderId"));
        }

        Response firstPage = given().header("Authorization", TestTokens.bearer(user)).get("/api/orders?limit=3");
        Response secondPage = given().header("Authorization", TestTokens.bearer(user))
                .get("/api/orders?limit=3&after=" + firstPage.<String>path("nextAfter"));

        assertThat(firstPage.<List<String>>path("data.orderId"))
                .containsExactly(created.get(4), created.get(3), created.get(2));
        assertThat(firstPage.<Boolean>path("hasMore")).isTrue();
        assertThat(secondPage.<List<String>>path("data.orderId")).containsExactly(created.get(1), created.get(0));
        assertThat(secondPage.<Boolean>path("hasMore")).isFalse();
    }
}
