package dev.onceguard.sandbox;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.onceguard.SandboxWebhooks;
import dev.onceguard.payment.PaymentsConfig;
import io.agroal.api.AgroalDataSource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.Response;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static dev.onceguard.Database.count;
import static dev.onceguard.sandbox.SandboxCalls.body;
import static dev.onceguard.sandbox.SandboxCalls.create;
import static dev.onceguard.sandbox.SandboxCalls.deliveriesOf;
import static dev.onceguard.sandbox.SandboxCalls.newOrderId;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;

/** The sandbox provider's own API: idempotent creates, lookups, and what every test token answers and schedules. */
@QuarkusTest
class SandboxApiTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @Inject
    AgroalDataSource db;

    @Inject
    SandboxConfig config;

    @Inject
    SandboxWebhooks webhooks;

    @Inject
    PaymentsConfig paymentsConfig;

    private long paymentsWithKey(String key) {
        return count(db, "SELECT count(*) FROM sandbox_payments WHERE idempotency_key = ?", key);
    }

    private long paymentsOfOrder(String orderId) {
        return count(db, "SELECT count(*) FROM sandbox_payments WHERE order_id = ?", orderId);
    }

    @Test
    void createsAPaymentAndAnswersTheSamePaymentForTheSameKey() {
        String orderId = newOrderId();
        String key = UUID.randomUUID().toString();

        Response first = create("tok_success", orderId, key);
        String reordered = "{\"metadata\":{\"payment_id\":\"pay_test\",\"order_id\":\"" + orderId + "\"},"
                + "\"paymentMethodToken\":\"tok_success\", \"currency\":\"RUB\",\"amount\":\"1500.00\"}";
        Response second = create(key, reordered);

        assertThat(first.statusCode()).isEqualTo(201);
        assertThat(first.contentType()).startsWith("application/json");
        assertThat(first.header("Idempotent-Replayed")).isNull();
        String id = first.path("id");
        assertThat(id).startsWith("sbx_");
        assertThat(first.header("Location")).endsWith("/sandbox/v1/payments/" + id);
        assertThat(first.<String>path("status")).isEqualTo("SUCCEEDED");
        assertThat(first.<String>path("amount")).isEqualTo("1500.00");
        assertThat(first.<String>path("currency")).isEqualTo("RUB");
        assertThat(first.<String>path("orderId")).isEqualTo(orderId);
        assertThat(Instant.parse(first.path("created"))).isBetween(Instant.now().minusSeconds(60), Instant.now());

        assertThat(second.statusCode()).isEqualTo(201);
        assertThat(second.header("Idempotent-Replayed")).isEqualTo("true");
        assertThat(second.<String>path("id")).isEqualTo(id);
        assertThat(second.<String>path("created")).isEqualTo(first.path("created"));
        assertThat(paymentsWithKey(key)).isEqualTo(1);
        assertThat(deliveriesOf(db, id)).hasSize(1);
    }

    @Test
    void theSameKeyWithAnotherBodyIsRefusedAndChangesNothing() {
        String orderId = newOrderId();
        String key = UUID.randomUUID().toString();
        create("tok_success", orderId, key);

        Response other = create(key, body("tok_success", orderId).replace("1500.00", "1600.00"));

        assertThat(other.statusCode()).isEqualTo(422);
        assertThat(other.contentType()).startsWith("application/problem+json");
        assertThat(other.<String>path("code")).isEqualTo("IDEMPOTENCY_KEY_REUSED");
        assertThat(paymentsWithKey(key)).isEqualTo(1);
        assertThat(count(db, "SELECT count(*) FROM sandbox_payments WHERE idempotency_key = ? AND amount = 1500.00", key))
                .isEqualTo(1);
    }

    @Test
    void tenConcurrentCreatesWithOneKeyMakeOnePayment() throws Exception {
        String orderId = newOrderId();
        String key = UUID.randomUUID().toString();
        int clients = 10;
        CyclicBarrier barrier = new CyclicBarrier(clients);
        ExecutorService pool = Executors.newFixedThreadPool(clients);
        List<Future<Response>> answers = new ArrayList<>();
        for (int i = 0; i < clients; i++) {
            answers.add(pool.submit(() -> {
                barrier.await();
                return create("tok_success", orderId, key);
            }));
        }
        Set<String> ids = new HashSet<>();
        int replayed = 0;
        for (Future<Response> answer : answers) {
            Response response = answer.get();
            assertThat(response.statusCode()).isEqualTo(201);
            ids.add(response.path("id"));
            if ("true".equals(response.header("Idempotent-Replayed"))) {
                replayed++;
            }
        }
        pool.shutdown();

        assertThat(ids).hasSize(1);
        assertThat(replayed).isEqualTo(clients - 1);
        assertThat(paymentsWithKey(key)).isEqualTo(1);
        assertThat(paymentsOfOrder(orderId)).isEqualTo(1);
        assertThat(deliveriesOf(db, ids.iterator().next())).hasSize(1);
    }

    @Test
    void refusedRequestsStoreNothingSoTheKeyStaysFree() {
        String orderId = newOrderId();
        String key = UUID.randomUUID().toString();

        Response missingKey = create(null, body("tok_success", orderId));
        Response unknownToken = create("tok_stolen_card_4242", orderId, key);
        Response badAmount = create(key, body("tok_success", orderId).replace("1500.00", "1500"));
        Response zero = create(key, body("tok_success", orderId).replace("1500.00", "0.00"));
        Response unknownField = create(key, body("tok_success", orderId).replace("{\"amount\"", "{\"total\":\"1.00\",\"amount\""));
        Response malformed = create(key, "{\"amount\":");

        assertThat(missingKey.statusCode()).isEqualTo(400);
        assertThat(missingKey.<String>path("code")).isEqualTo("IDEMPOTENCY_KEY_MISSING");
        assertThat(unknownToken.statusCode()).isEqualTo(400);
        assertThat(unknownToken.contentType()).startsWith("application/problem+json");
        assertThat(unknownToken.<String>path("code")).isEqualTo("UNKNOWN_PAYMENT_METHOD_TOKEN");
        assertThat(unknownToken.asString()).doesNotContain("tok_stolen_card_4242");
        assertThat(badAmount.statusCode()).isEqualTo(400);
        assertThat(badAmount.<String>path("code")).isEqualTo("VALIDATION_FAILED");
        assertThat(badAmount.<List<String>>path("errors.field")).containsExactly("amount");
        assertThat(zero.<String>path("code")).isEqualTo("VALIDATION_FAILED");
        assertThat(unknownField.<String>path("code")).isEqualTo("VALIDATION_FAILED");
        assertThat(malformed.<String>path("code")).isEqualTo("MALFORMED_JSON");
        assertThat(paymentsOfOrder(orderId)).isZero();

        assertThat(create("tok_success", orderId, key).statusCode()).isEqualTo(201);
        assertThat(paymentsOfOrder(orderId)).isEqualTo(1);
    }

    @Test
    void getsOnePaymentById() {
        String id = create("tok_decline", newOrderId(), UUID.randomUUID().toString()).path("id");

        Response found = given().get("/sandbox/v1/payments/" + id);
        Response unknown = given().get("/sandbox/v1/payments/sbx_unknown");

        assertThat(found.statusCode()).isEqualTo(200);
        assertThat(found.<String>path("id")).isEqualTo(id);
        assertThat(found.<String>path("status")).isEqualTo("FAILED");
        assertThat(unknown.statusCode()).isEqualTo(404);
        assertThat(unknown.contentType()).startsWith("application/problem+json");
        assertThat(unknown.<String>path("code")).isEqualTo("SANDBOX_PAYMENT_NOT_FOUND");
    }

    @Test
    void listsThePaymentsOfAnOrderInCreationOrder() {
        String orderId = newOrderId();
        String otherOrder = newOrderId();
        String firstId = create("tok_decline", orderId, UUID.randomUUID().toString()).path("id");
        String secondId = create("tok_success", orderId, UUID.randomUUID().toString()).path("id");
        create("tok_success", otherOrder, UUID.randomUUID().toString());

        Response list = given().queryParam("orderId", orderId).get("/sandbox/v1/payments");
        Response none = given().queryParam("orderId", newOrderId()).get("/sandbox/v1/payments");
        Response withoutOrder = given().get("/sandbox/v1/payments");

        assertThat(list.statusCode()).isEqualTo(200);
        assertThat(list.<List<String>>path("data.id")).containsExactly(firstId, secondId);
        assertThat(list.<List<String>>path("data.orderId")).containsOnly(orderId);
        assertThat(list.<Boolean>path("hasMore")).isFalse();
        assertThat(none.<List<Object>>path("data")).isEmpty();
        assertThat(withoutOrder.statusCode()).isEqualTo(400);
        assertThat(withoutOrder.<String>path("code")).isEqualTo("VALIDATION_FAILED");
    }

    // ---- test tokens: the immediate answer and the webhooks each schedules ----

    private record Scheduled(String type, int copy, long delayMillis, String objectStatus) {
    }

    private List<Scheduled> scheduled(String paymentId) {
        return deliveriesOf(db, paymentId).stream().map(row -> new Scheduled((String) row.get("event_type"),
                ((Number) row.get("copy")).intValue(), ((Number) row.get("delay_ms")).longValue(),
                event(row).path("data").path("object").path("status").asText())).toList();
    }

    private static JsonNode event(Map<String, Object> delivery) {
        try {
            return JSON.readTree((String) delivery.get("body"));
        } catch (java.io.IOException e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void tokSuccessSucceedsAndSchedulesOnePaymentSucceeded() {
        Response answer = create("tok_success", newOrderId(), UUID.randomUUID().toString());

        assertThat(answer.statusCode()).isEqualTo(201);
        assertThat(answer.<String>path("status")).isEqualTo("SUCCEEDED");
        assertThat(scheduled(answer.path("id"))).containsExactly(new Scheduled("payment.succeeded", 1, 0, "SUCCEEDED"));
    }

    @Test
    void tokDeclineFailsAndSchedulesPaymentCanceled() {
        Response answer = create("tok_decline", newOrderId(), UUID.randomUUID().toString());

        assertThat(answer.statusCode()).isEqualTo(201);
        assertThat(answer.<String>path("status")).isEqualTo("FAILED");
        assertThat(scheduled(answer.path("id"))).containsExactly(new Scheduled("payment.canceled", 1, 0, "CANCELED"));
    }

    @Test
    void tokPendingIsPendingNowAndSucceedsWhenItsWebhookFallsDue() {
        Response answer = create("tok_pending", newOrderId(), UUID.randomUUID().toString());
        String id = answer.path("id");
        Instant created = Instant.parse(answer.path("created"));

        assertThat(answer.statusCode()).isEqualTo(201);
        assertThat(answer.<String>path("status")).isEqualTo("PENDING");
        assertThat(scheduled(id)).containsExactly(
                new Scheduled("payment.succeeded", 1, config.pendingDelay().toMillis(), "SUCCEEDED"));

        webhooks.deliverDueAt(Clock.fixed(created.plus(config.pendingDelay()).minusMillis(1), ZoneOffset.UTC));
        assertThat(given().get("/sandbox/v1/payments/" + id).<String>path("status")).isEqualTo("PENDING");

        webhooks.deliverDueAt(Clock.fixed(created.plus(config.pendingDelay()), ZoneOffset.UTC));
        assertThat(given().get("/sandbox/v1/payments/" + id).<String>path("status")).isEqualTo("SUCCEEDED");
    }

    @Test
    void tokDuplicateWebhooksSchedulesThreeCopiesOfOneEvent() {
        Response answer = create("tok_duplicate_webhooks", newOrderId(), UUID.randomUUID().toString());
        String id = answer.path("id");

        assertThat(answer.<String>path("status")).isEqualTo("SUCCEEDED");
        assertThat(scheduled(id)).containsExactly(
                new Scheduled("payment.succeeded", 1, 0, "SUCCEEDED"),
                new Scheduled("payment.succeeded", 2, 0, "SUCCEEDED"),
                new Scheduled("payment.succeeded", 3, 0, "SUCCEEDED"));
        List<Map<String, Object>> deliveries = deliveriesOf(db, id);
        assertThat(deliveries).extracting(d -> d.get("event_id")).containsOnly(deliveries.get(0).get("event_id"));
        assertThat(deliveries).extracting(d -> d.get("body")).containsOnly(deliveries.get(0).get("body"));
    }

    @Test
    void tokOutOfOrderSchedulesAStalePendingAfterSucceeded() {
        Response answer = create("tok_out_of_order", newOrderId(), UUID.randomUUID().toString());
        String id = answer.path("id");

        assertThat(answer.<String>path("status")).isEqualTo("SUCCEEDED");
        assertThat(scheduled(id)).containsExactly(
                new Scheduled("payment.succeeded", 1, 0, "SUCCEEDED"),
                new Scheduled("payment.pending", 1, config.staleEventDelay().toMillis(), "PENDING"));
        List<Map<String, Object>> deliveries = deliveriesOf(db, id);
        assertThat(deliveries.get(0).get("event_id")).isNotEqualTo(deliveries.get(1).get("event_id"));
        assertThat(given().get("/sandbox/v1/payments/" + id).<String>path("status")).isEqualTo("SUCCEEDED");
    }

    @Test
    void tokTimeoutAfterCommitCommitsThenAnswersAfterTheCallersTimeout() {
        String orderId = newOrderId();
        String key = UUID.randomUUID().toString();

        long started = System.nanoTime();
        Response late = create("tok_timeout_after_commit", orderId, key);
        Duration took = Duration.ofNanos(System.nanoTime() - started);
        Response retry = create("tok_timeout_after_commit", orderId, key);

        assertThat(took).isGreaterThan(paymentsConfig.providerTimeout());
        assertThat(late.statusCode()).isEqualTo(201);
        assertThat(late.<String>path("status")).isEqualTo("SUCCEEDED");
        assertThat(retry.statusCode()).isEqualTo(201);
        assertThat(retry.header("Idempotent-Replayed")).isEqualTo("true");
        assertThat(retry.<String>path("id")).isEqualTo(late.path("id"));
        assertThat(paymentsOfOrder(orderId)).isEqualTo(1);
        assertThat(scheduled(late.path("id"))).as("its webhook follows the late answer")
                .containsExactly(new Scheduled("payment.succeeded", 1,
                        paymentsConfig.providerTimeout().plusSeconds(1).toMillis(), "SUCCEEDED"));
    }

    @Test
    void tokErrorAfterCommitCommitsThenAnswers500() {
        String orderId = newOrderId();
        String key = UUID.randomUUID().toString();

        Response error = create("tok_error_after_commit", orderId, key);
        Response retry = create("tok_error_after_commit", orderId, key);

        assertThat(error.statusCode()).isEqualTo(500);
        assertThat(error.contentType()).startsWith("application/problem+json");
        assertThat(error.<String>path("code")).isEqualTo("SANDBOX_SIMULATED_ERROR");
        assertThat(paymentsOfOrder(orderId)).isEqualTo(1);
        assertThat(retry.statusCode()).isEqualTo(201);
        assertThat(retry.header("Idempotent-Replayed")).isEqualTo("true");
        assertThat(retry.<String>path("status")).isEqualTo("SUCCEEDED");
        assertThat(scheduled(retry.path("id"))).containsExactly(new Scheduled("payment.succeeded", 1, 0, "SUCCEEDED"));
    }

    @Test
    void eventBodiesHaveTheContractsShape() {
        Response answer = create("tok_success", newOrderId(), UUID.randomUUID().toString());
        Map<String, Object> delivery = deliveriesOf(db, answer.path("id")).get(0);

        JsonNode event = event(delivery);

        assertThat(event.fieldNames()).toIterable().containsExactly("id", "type", "created", "data");
        assertThat(event.path("id").asText()).isEqualTo(delivery.get("event_id")).startsWith("evt_");
        assertThat(event.path("type").asText()).isEqualTo("payment.succeeded");
        assertThat(event.path("created").asText()).isEqualTo(answer.<String>path("created"));
        JsonNode object = event.path("data").path("object");
        assertThat(object.fieldNames()).toIterable().containsExactly("id", "status", "amount", "currency", "metadata");
        assertThat(object.path("metadata").path("order_id").asText()).isEqualTo(answer.<String>path("orderId"));
        assertThat(object.path("metadata").path("payment_id").asText()).isEqualTo("pay_test");
        assertThat(object.path("id").asText()).isEqualTo(answer.<String>path("id"));
        assertThat(object.path("status").asText()).isEqualTo("SUCCEEDED");
        assertThat(object.path("amount").isTextual()).isTrue();
        assertThat(object.path("amount").asText()).isEqualTo("1500.00");
        assertThat(object.path("currency").asText()).isEqualTo("RUB");
    }
}
