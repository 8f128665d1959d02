package dev.onceguard.maintenance;

import dev.onceguard.TestTokens;
import io.agroal.api.AgroalDataSource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.Response;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static dev.onceguard.Database.count;
import static dev.onceguard.Database.execute;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;

@QuarkusTest
class RetentionCleanupTest {

    @Inject
    AgroalDataSource db;

    @Inject
    RetentionCleanup cleanup;

    private long recordsOf(String user) {
        return count(db, "SELECT count(*) FROM idempotency_records WHERE user_id = ?", user);
    }

    private void runUntilNothingLeft() {
        while (cleanup.run().values().stream().anyMatch(n -> n > 0)) {
            Thread.onSpinWait();
        }
    }

    @Test
    void deletesWhatExpiredAndKeepsUnfinishedWork() {
        String user = TestTokens.newUser();
        Seeds.expiredRecords(db, user, 30);
        Seeds.processingRecord(db, user, "create-order", "still-running", "started", null, true);
        String orderId = "ord_" + UUID.randomUUID();
        execute(db, "INSERT INTO orders (order_id, user_id, status, total, currency, request_id, created_at, updated_at) "
                + "VALUES (?, ?, 'AWAITING_PAYMENT', 10, 'RUB', 'seed', now(), now())", orderId, user);
        String pendingPayment = "pay_" + UUID.randomUUID();
        execute(db, "INSERT INTO payments (payment_id, order_id, user_id, status, amount, currency, provider, "
                + "provider_idempotency_key, payment_method_token, created_at, updated_at) "
                + "VALUES (?, ?, ?, 'PENDING', 10, 'RUB', 'sandbox', ?, 'tok_pending', now(), now())",
                pendingPayment, orderId, user, "onceguard-" + pendingPayment);
        execute(db, "INSERT INTO idempotency_records (user_id, operation, idempotency_key, fingerprint, status, "
                + "recovery_point, response_status, response_body, resource_type, resource_id, request_id, created_at, "
                + "completed_at, expires_at) VALUES (?, 'create-payment', 'pay-key', repeat('c', 64), 'COMPLETED', "
                + "'finished', 201, '\\x7b7d'::bytea, 'payment', ?, 'seed', now() - interval '2 days', "
                + "now() - interval '2 days', now() - interval '1 day')", user, pendingPayment);
        String tag = "cleanup-" + UUID.randomUUID();
        execute(db, "INSERT INTO outbox_events (event_type, aggregate_type, aggregate_id, payload, status, next_attempt_at, "
                + "created_at, processed_at) SELECT 'T', ?, 'done-' || g, '{}', 'DONE', now(), now() - interval '8 days', "
                + "now() - interval '8 days' FROM generate_series(1, 5) g", tag);
        execute(db, "INSERT INTO outbox_events (event_type, aggregate_type, aggregate_id, payload, status, next_attempt_at, "
                + "created_at) VALUES ('T', ?, 'pending', '{}', 'PENDING', now(), now() - interval '30 days'), "
                + "('T', ?, 'dead', '{}', 'DEAD', now(), now() - interval '30 days')", tag, tag);

        String provider = "p-" + UUID.randomUUID();
        execute(db, "INSERT INTO webhook_inbox (provider, event_id, event_type, payload, status, received_at, "
                + "last_delivered_at, processed_at) VALUES (?, 'old', 't', '{}', 'PROCESSED', now() - interval '31 days', "
                + "now() - interval '31 days', now() - interval '31 days'), (?, 'failed', 't', '{}', 'FAILED', "
                + "now() - interval '31 days', now() - interval '31 days', NULL), (?, 'recent', 't', '{}', 'IGNORED', "
                + "now(), now(), now())", provider, provider, provider);

        runUntilNothingLeft();

        assertThat(count(db, "SELECT count(*) FROM webhook_inbox WHERE provider = ? AND event_id IN ('failed', 'recent')",
                provider)).isEqualTo(2);
        assertThat(count(db, "SELECT count(*) FROM webhook_inbox WHERE provider = ?", provider)).isEqualTo(2);
        assertThat(recordsOf(user)).as("the PROCESSING record and the record of a PENDING payment stay").isEqualTo(2);
        assertThat(count(db, "SELECT count(*) FROM idempotency_records WHERE user_id = ? AND status = 'PROCESSING'", user))
                .isEqualTo(1);
        assertThat(count(db, "SELECT count(*) FROM outbox_events WHERE aggregate_type = ?", tag))
                .as("undelivered and dead events stay").isEqualTo(2);
    }

    @Test
    void rejectedInboxEventsGoAfterTheInboxRetentionAndParkedOnesAfterTheirLongerOne() {
        String provider = "p-" + UUID.randomUUID();
        execute(db, """
                INSERT INTO webhook_inbox (provider, event_id, event_type, payload, status, reason, received_at,
                    last_delivered_at, processed_at)
                SELECT ?, event_id, 't', '{}', status, 'seed', now() - CAST(received AS interval),
                       now() - CAST(received AS interval), now() - CAST(processed AS interval)
                  FROM (VALUES ('rejected-old', 'REJECTED', '31 days', '31 days'),
                               ('rejected-recent', 'REJECTED', '29 days', '29 days'),
                               ('parked-old', 'PENDING_MATCH', '91 days', NULL),
                               ('parked-recent', 'PENDING_MATCH', '89 days', NULL),
                               ('received-old', 'RECEIVED', '200 days', NULL),
                               ('failed-old', 'FAILED', '200 days', NULL)) AS seed(event_id, status, received, processed)""",
                provider);

        runUntilNothingLeft();

        assertThat(count(db, "SELECT count(*) FROM webhook_inbox WHERE provider = ? AND event_id IN ('rejected-recent', "
                + "'parked-recent', 'received-old', 'failed-old')", provider)).isEqualTo(4);
        assertThat(count(db, "SELECT count(*) FROM webhook_inbox WHERE provider = ?", provider))
                .as("the old rejected and the old parked event are gone").isEqualTo(4);
    }

    @Test
    void afterItsRecordIsGoneTheSameKeyStartsANewOperation() {
        String user = TestTokens.newUser();
        String key = UUID.randomUUID().toString();
        String first = given().header("Authorization", TestTokens.bearer(user)).header("Idempotency-Key", key)
                .contentType("application/json").body(CleanupUnderLoad.ORDER).post("/api/orders").path("orderId");
        execute(db, "UPDATE idempotency_records SET expires_at = now() - interval '1 second' WHERE user_id = ?", user);

        runUntilNothingLeft();
        Response again = given().header("Authorization", TestTokens.bearer(user)).header("Idempotency-Key", key)
                .contentType("application/json").body(CleanupUnderLoad.ORDER).post("/api/orders");

        assertThat(again.statusCode()).isEqualTo(201);
        assertThat(again.header("Idempotent-Replayed")).isNull();
        assertThat(again.<String>path("orderId")).isNotEqualTo(first);
    }

    @Test
    void twoReplicasCleaningAtOnceShareTheWorkAndDeleteEachRowOnce() throws Exception {
        String user = TestTokens.newUser();
        Seeds.expiredRecords(db, user, 5_000);
        CyclicBarrier barrier = new CyclicBarrier(2);
        ExecutorService pool = Executors.newFixedThreadPool(2);
        List<Future<Long>> replicas = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            replicas.add(pool.submit(() -> {
                barrier.await();
                long deleted = 0;
                Map<String, Long> run;
                do {
                    run = cleanup.run();
                    deleted += run.get("idempotency_records");
                } while (run.get("idempotency_records") > 0);
                return deleted;
            }));
        }
        long total = replicas.get(0).get() + replicas.get(1).get();
        pool.shutdown();

        assertThat(recordsOf(user)).isZero();
        assertThat(total).as("deletions reported by both replicas").isGreaterThanOrEqualTo(5_000);
    }

    /**
     * Cleanup of 200,000 expired records runs in bounded batches while orders keep being created; prints the
     * latency of order creation without and during the cleanup (reported, not asserted: it depends on the machine).
     */
    @Test
    void cleanupOf200kRecordsLetsOrdersThrough() throws Exception {
        String user = TestTokens.newUser();
        Seeds.expiredRecords(db, user, 200_000);
        String buyer = TestTokens.newUser();

        CleanupUnderLoad.Result result = CleanupUnderLoad.measure(cleanup, buyer, 200);

        System.out.println(result.summary());
        assertThat(recordsOf(user)).isZero();
        assertThat(result.deleted()).isGreaterThanOrEqualTo(200_000);
        assertThat(result.busyNanos()).isNotEmpty();
        assertThat(count(db, "SELECT count(*) FROM orders WHERE user_id = ?", buyer))
                .isEqualTo(result.quietNanos().size() + result.busyNanos().size());
    }
}
