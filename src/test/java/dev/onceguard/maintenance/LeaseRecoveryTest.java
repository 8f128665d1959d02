package dev.onceguard.maintenance;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.onceguard.TestTokens;
import dev.onceguard.idempotency.IdempotencyService;
import dev.onceguard.idempotency.Fingerprint;
import dev.onceguard.platform.Jobs;
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

/** Scenario 11 at the level of the database: expired leases at each recovery point, on one or two replicas. */
@QuarkusTest
class LeaseRecoveryTest {

    private static final String ORDER = "{\"items\":[{\"productId\":\"p-184\",\"quantity\":1}],\"currency\":\"RUB\"}";

    @Inject
    AgroalDataSource db;

    @Inject
    LeaseRecovery recovery;

    private static String newOrder(String user) {
        return given().header("Authorization", TestTokens.bearer(user))
                .header("Idempotency-Key", UUID.randomUUID().toString()).contentType("application/json").body(ORDER)
                .post("/api/orders").then().statusCode(201).extract().path("orderId");
    }

    @Test
    void anOperationThatNeverReachedAnExternalCallIsReleasedAndItsKeyWorksAgain() {
        String user = TestTokens.newUser();
        String key = UUID.randomUUID().toString();
        Seeds.processingRecord(db, user, "create-order", key, IdempotencyService.STARTED, null, true);

        Map<String, Long> run = recovery.runNow().counts();
        Response retry = given().header("Authorization", TestTokens.bearer(user)).header("Idempotency-Key", key)
                .contentType("application/json").body(ORDER).post("/api/orders");

        assertThat(run.get("released")).isGreaterThanOrEqualTo(1);
        assertThat(retry.statusCode()).isEqualTo(201);
        assertThat(retry.header("Idempotent-Replayed")).isNull();
        assertThat(count(db, "SELECT count(*) FROM idempotency_records WHERE user_id = ? AND status = 'PROCESSING'", user))
                .isZero();
    }

    @Test
    void aClientRetryOnAnAbandonedStartReleasesItAndExecutes() throws Exception {
        String user = TestTokens.newUser();
        String key = UUID.randomUUID().toString();
        String fingerprint = Fingerprint.of(Map.of(), new ObjectMapper().readTree(ORDER));
        Seeds.processingRecord(db, user, "create-order", key, fingerprint, IdempotencyService.STARTED, null, true);

        Response retry = given().header("Authorization", TestTokens.bearer(user)).header("Idempotency-Key", key)
                .contentType("application/json").body(ORDER).post("/api/orders");

        assertThat(retry.statusCode()).isEqualTo(201);
        assertThat(retry.header("Idempotent-Replayed")).isNull();
        assertThat(count(db, "SELECT count(*) FROM idempotency_records WHERE user_id = ? AND status = 'COMPLETED'", user))
                .isEqualTo(1);
    }

    @Test
    void aLiveLeaseIsLeftAloneAndItsRetryIsToldToWait() throws Exception {
        String user = TestTokens.newUser();
        String key = UUID.randomUUID().toString();
        String fingerprint = Fingerprint.of(Map.of(), new ObjectMapper().readTree(ORDER));
        Seeds.processingRecord(db, user, "create-order", key, fingerprint, IdempotencyService.STARTED, null, false);

        recovery.runNow().counts();
        Response retry = given().header("Authorization", TestTokens.bearer(user)).header("Idempotency-Key", key)
                .contentType("application/json").body(ORDER).post("/api/orders");

        assertThat(count(db, "SELECT count(*) FROM idempotency_records WHERE user_id = ? AND status = 'PROCESSING'", user))
                .isEqualTo(1);
        assertThat(retry.statusCode()).isEqualTo(409);
        assertThat(retry.<String>path("code")).isEqualTo("OPERATION_IN_PROGRESS");
        assertThat(Integer.parseInt(retry.header("Retry-After"))).isBetween(1, 60);
    }

    @Test
    void aPaymentWaitingForTheCustomerIsLeftAloneUntilItsWaitIsOver() {
        String user = TestTokens.newUser();
        String paymentId = "pay_" + UUID.randomUUID();
        Seeds.processingRecord(db, user, "create-payment", "in-3ds", "requires_action", paymentId, true);
        execute(db, "UPDATE idempotency_records SET recover_after = now() + interval '5 minutes' WHERE user_id = ?", user);

        recovery.runNow();

        assertThat(count(db, "SELECT count(*) FROM idempotency_records WHERE user_id = ? AND status = 'PROCESSING' "
                + "AND recovery_point = 'requires_action' AND lease_expires_at < now()", user))
                .as("not taken over: its lease still the expired one it gave up").isEqualTo(1);
    }

    @Test
    void aPaymentThatMayHaveReachedTheProviderIsResumedWithTheSameProviderKey() {
        String user = TestTokens.newUser();
        String orderId = given().header("Authorization", TestTokens.bearer(user))
                .header("Idempotency-Key", UUID.randomUUID().toString()).contentType("application/json").body(ORDER)
                .post("/api/orders").then().statusCode(201).extract().path("orderId");
        String paymentId = "pay_" + UUID.randomUUID();
        execute(db, "INSERT INTO payments (payment_id, order_id, user_id, status, amount, currency, provider, "
                + "provider_idempotency_key, payment_method_token, created_at, updated_at) "
                + "VALUES (?, ?, ?, 'CREATED', 1500.00, 'RUB', 'sandbox', ?, 'tok_success', now(), now())",
                paymentId, orderId, user, "onceguard-" + paymentId);
        given().header("Idempotency-Key", "onceguard-" + paymentId).contentType("application/json")
                .body("{\"amount\":\"1500.00\",\"currency\":\"RUB\",\"paymentMethodToken\":\"tok_success\","
                        + "\"metadata\":{\"order_id\":\"" + orderId + "\",\"payment_id\":\"" + paymentId + "\"}}")
                .post("/sandbox/v1/payments").then().statusCode(201);
        Seeds.processingRecord(db, user, "create-payment", "crashed-after-call", "payment_created", paymentId, true);

        Map<String, Long> run = recovery.runNow().counts();

        assertThat(run.get("reconciled")).isGreaterThanOrEqualTo(1);
        assertThat(count(db, "SELECT count(*) FROM payments WHERE payment_id = ? AND status = 'SUCCEEDED'", paymentId))
                .isEqualTo(1);
        assertThat(count(db, "SELECT count(*) FROM idempotency_records WHERE user_id = ? AND operation = 'create-payment' "
                + "AND status = 'COMPLETED' AND response_status = 201", user)).isEqualTo(1);
        assertThat(given().get("/sandbox/v1/payments?orderId=" + orderId).then().extract().<List<Object>>path("data"))
                .as("the provider was asked again with the same key, not charged twice").hasSize(1);
    }

    @Test
    void aRecordWhoseResumptionThrowsIsCountedAsFailedAndTheOthersAreStillRecovered() {
        String user = TestTokens.newUser();
        String brokenOrder = newOrder(user);
        String broken = "pay_" + UUID.randomUUID();
        execute(db, "INSERT INTO payments (payment_id, order_id, user_id, status, amount, currency, provider, "
                + "provider_payment_id, provider_idempotency_key, payment_method_token, created_at, updated_at) "
                + "VALUES (?, ?, ?, 'REQUIRES_ACTION', 1500.00, 'RUB', 'sandbox', 'sbx_never_made', ?, 'tok_success', "
                + "now(), now())", broken, brokenOrder, user, "onceguard-" + broken);
        Seeds.processingRecord(db, user, "create-payment", "asks-for-" + broken, "requires_action", broken, true);
        execute(db, "UPDATE idempotency_records SET lease_expires_at = now() - interval '2 minutes' WHERE resource_id = ?",
                broken);
        String key = UUID.randomUUID().toString();
        Seeds.processingRecord(db, user, "create-order", key, IdempotencyService.STARTED, null, true);

        Jobs.Finished run = recovery.runNow();

        assertThat(run.outcome()).isEqualTo(Jobs.Outcome.SUCCEEDED);
        assertThat(run.counts().get("failed")).isGreaterThanOrEqualTo(1);
        assertThat(count(db, "SELECT count(*) FROM idempotency_records WHERE user_id = ? AND idempotency_key = ?", user, key))
                .as("the record after the failing one was released").isZero();
        assertThat(count(db, "SELECT count(*) FROM job_runs "
                + "WHERE id = (SELECT max(id) FROM job_runs WHERE job = 'lease-recovery') "
                + "AND outcome = 'SUCCEEDED' AND (counts ->> 'failed')::int >= 1")).as("this run's own row").isEqualTo(1);
        execute(db, "DELETE FROM idempotency_records WHERE resource_id = ?", broken);
        execute(db, "DELETE FROM payments WHERE payment_id = ?", broken);
    }

    @Test
    void twoReplicasRecoveringAtOnceReleaseEachRecordOnce() throws Exception {
        recovery.runNow().counts();
        String user = TestTokens.newUser();
        int records = 60;
        for (int i = 0; i < records; i++) {
            Seeds.processingRecord(db, user, "create-order", "crashed-" + i, IdempotencyService.STARTED, null, true);
        }
        CyclicBarrier barrier = new CyclicBarrier(2);
        ExecutorService pool = Executors.newFixedThreadPool(2);
        List<Future<Long>> replicas = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            replicas.add(pool.submit(() -> {
                barrier.await();
                return recovery.runNow().counts().get("released");
            }));
        }
        long released = replicas.get(0).get() + replicas.get(1).get();
        pool.shutdown();

        assertThat(count(db, "SELECT count(*) FROM idempotency_records WHERE user_id = ?", user)).isZero();
        assertThat(released).as("each record released by exactly one replica").isEqualTo(records);
    }
}
