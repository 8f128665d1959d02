package dev.onceguard.payment.yookassa;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.onceguard.TestTokens;
import dev.onceguard.maintenance.LeaseRecovery;
import io.agroal.api.AgroalDataSource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.restassured.response.Response;
import jakarta.inject.Inject;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.UUID;

import static dev.onceguard.Database.count;
import static dev.onceguard.Database.execute;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Paying with YooKassa (the local stub) through the API: the redirect confirmation, the notification that settles it,
 * a replay that never calls YooKassa again, a timeout settled with the same Idempotence-Key, and the engine's recovery
 * of a process that died between the claim and the provider call.
 */
@QuarkusTest
@TestProfile(WithYooKassa.class)
class YooKassaCheckoutTest {

    private static final String ORDER = "{\"items\":[{\"productId\":\"p-184\",\"quantity\":1}],\"currency\":\"RUB\"}";

    @Inject
    AgroalDataSource db;

    @Inject
    LeaseRecovery recovery;

    private final String user = TestTokens.newUser();

    private YooKassaStub yookassa() {
        return WithYooKassa.Stub.yookassa;
    }

    @AfterEach
    void answerLikeYooKassaAgain() {
        yookassa().answerLikeYooKassa();
    }

    private String newOrder() {
        return given().header("Authorization", TestTokens.bearer(user))
                .header("Idempotency-Key", UUID.randomUUID().toString()).contentType("application/json").body(ORDER)
                .post("/api/orders").then().statusCode(201).extract().path("orderId");
    }

    private Response pay(String orderId, String key) {
        return given().header("Authorization", TestTokens.bearer(user)).header("Idempotency-Key", key)
                .contentType("application/json").body("{\"paymentMethodToken\":\"yookassa_redirect\"}")
                .post("/api/orders/" + orderId + "/payments");
    }

    private static Response notify(String event, String providerPaymentId, String from) {
        ObjectNode body = YooKassaStub.shape("notification-payment-succeeded.json");
        body.put("event", event);
        ((ObjectNode) body.get("object")).put("id", providerPaymentId);
        return given().contentType("application/json").header("X-Forwarded-For", from).body(body.toString())
                .post("/webhooks/yookassa");
    }

    @Test
    void thePaymentWaitsForTheRedirectConfirmationAndTheNotificationSettlesItAndTheReplayCallsNoOne() {
        String orderId = newOrder();
        String key = UUID.randomUUID().toString();

        Response redirect = pay(orderId, key);
        String paymentId = redirect.path("paymentId");
        String yookassaId = redirect.path("providerPaymentId");
        Response retryWhileWaiting = pay(orderId, key);
        yookassa().settle(yookassaId, "succeeded");
        Response notified = notify("payment.succeeded", yookassaId, "185.71.77.9");
        int requestsBeforeReplay = yookassa().requests.size();
        Response replay = pay(orderId, key);

        assertThat(redirect.statusCode()).isEqualTo(202);
        assertThat(redirect.<String>path("status")).isEqualTo("REQUIRES_ACTION");
        assertThat(redirect.<String>path("confirmationUrl"))
                .isEqualTo("https://yoomoney.ru/api-pages/v2/payment-confirm/epl?orderId=" + yookassaId);
        YooKassaStub.Recorded create = yookassa().requests.stream().filter(r -> r.method().equals("POST")
                && r.json().path("metadata").path("payment_id").asText().equals(paymentId)).findFirst().orElseThrow();
        assertThat(create.headers()).containsEntry("idempotence-key", "onceguard-" + paymentId);
        assertThat(create.json().path("amount").path("value").asText()).isEqualTo("1500.00");
        assertThat(create.json().path("confirmation").path("return_url").asText()).isEqualTo(WithYooKassa.RETURN_URL);
        assertThat(create.json().path("metadata").path("order_id").asText()).isEqualTo(orderId);
        assertThat(retryWhileWaiting.statusCode()).isEqualTo(202);
        assertThat(retryWhileWaiting.<String>path("confirmationUrl")).endsWith(yookassaId);
        assertThat(notified.statusCode()).isEqualTo(200);
        assertThat(notified.<String>path("status")).isEqualTo("processed");
        assertThat(replay.statusCode()).isEqualTo(201);
        assertThat(replay.header("Idempotent-Replayed")).isEqualTo("true");
        assertThat(replay.<String>path("status")).isEqualTo("SUCCEEDED");
        assertThat(replay.asString()).doesNotContain("confirmationUrl");
        assertThat(yookassa().requests).as("the replay was answered from the stored response").hasSize(requestsBeforeReplay);
        assertThat(yookassa().paymentsWithKey("onceguard-" + paymentId)).isEqualTo(1);
        assertThat(count(db, "SELECT count(*) FROM orders WHERE order_id = ? AND status = 'PAID'", orderId)).isEqualTo(1);
        String metrics = given().get("/q/metrics").asString();
        assertThat(metrics).containsPattern("onceguard_provider_calls_total\\{[^}]*call=\"create\"[^}]*"
                        + "outcome=\"requires_action\"[^}]*provider=\"yookassa\"[^}]*\\} [1-9]")
                .containsPattern("onceguard_provider_calls_total\\{[^}]*call=\"read_back\"[^}]*outcome=\"answered\""
                        + "[^}]*provider=\"yookassa\"[^}]*\\} [1-9]");
    }

    @Test
    void aPaymentCanceledAtYooKassaIsCanceledWithItsCancellationDetailsAsTheReason() {
        String orderId = newOrder();
        String key = UUID.randomUUID().toString();

        Response redirect = pay(orderId, key);
        yookassa().settle(redirect.path("providerPaymentId"), "canceled");
        Response canceled = pay(orderId, key);

        assertThat(canceled.statusCode()).isEqualTo(201);
        assertThat(canceled.<String>path("status")).isEqualTo("CANCELED");
        assertThat(count(db, "SELECT count(*) FROM payments WHERE payment_id = ? AND status = 'CANCELED'"
                        + " AND failure_reason = 'YooKassa cancellation: insufficient_funds (by payment_network)'",
                redirect.<String>path("paymentId"))).isEqualTo(1);
        assertThat(count(db, "SELECT count(*) FROM orders WHERE order_id = ? AND status = 'AWAITING_PAYMENT'", orderId))
                .isEqualTo(1);
    }

    @Test
    void aCreateThatTimesOutIsUnknownAndTheRetryWithTheSameKeyFindsThePaymentItMade() {
        yookassa().answer((request, stub) -> {
            YooKassaStub.Reply made = YooKassaStub.likeYooKassa(request, stub);
            return request.method().equals("POST") ? new YooKassaStub.Reply(made.status(), made.body(), 3_000) : made;
        });
        String orderId = newOrder();
        String key = UUID.randomUUID().toString();

        Response unknown = pay(orderId, key);
        yookassa().answerLikeYooKassa();
        Response retry = pay(orderId, key);

        String paymentId = unknown.path("paymentId");
        assertThat(unknown.statusCode()).isEqualTo(202);
        assertThat(unknown.<String>path("status")).isEqualTo("UNKNOWN");
        assertThat(unknown.header("Retry-After")).isNotNull();
        assertThat(retry.statusCode()).isEqualTo(202);
        assertThat(retry.<String>path("status")).isEqualTo("REQUIRES_ACTION");
        assertThat(retry.<String>path("paymentId")).isEqualTo(paymentId);
        assertThat(yookassa().postsWithKey("onceguard-" + paymentId)).isEqualTo(2);
        assertThat(yookassa().paymentsWithKey("onceguard-" + paymentId)).isEqualTo(1);
        assertThat(count(db, "SELECT count(*) FROM state_transitions WHERE subject_type = 'payment' AND subject_id = ?"
                + " AND from_status = 'UNKNOWN' AND to_status = 'REQUIRES_ACTION'", paymentId)).isEqualTo(1);
    }

    @Test
    void aProcessKilledBetweenTheClaimAndTheCallEndsWithOnePaymentAtYooKassaAfterRecovery() {
        String beforeCall = crashedAt(newOrder());
        String afterCall = crashedAt(newOrder());
        given().auth().preemptive().basic(YooKassaStub.SHOP_ID, YooKassaStub.SECRET_KEY)
                .header("Idempotence-Key", "onceguard-" + afterCall).contentType("application/json")
                .body("{\"amount\":{\"value\":\"1500.00\",\"currency\":\"RUB\"},\"capture\":true,\"metadata\":"
                        + "{\"payment_id\":\"" + afterCall + "\"}}")
                .post(yookassa().baseUrl() + "/payments").then().statusCode(200);

        recovery.runNow();
        recovery.runNow();

        for (String paymentId : new String[]{beforeCall, afterCall}) {
            assertThat(yookassa().paymentsWithKey("onceguard-" + paymentId)).as(paymentId).isEqualTo(1);
            assertThat(count(db, "SELECT count(*) FROM payments WHERE payment_id = ? AND status = 'REQUIRES_ACTION'"
                    + " AND provider_payment_id IS NOT NULL", paymentId)).as(paymentId).isEqualTo(1);
            assertThat(count(db, "SELECT count(*) FROM idempotency_records WHERE resource_id = ? AND status = 'PROCESSING'"
                    + " AND recovery_point = 'requires_action'", paymentId)).as(paymentId).isEqualTo(1);
        }
        assertThat(yookassa().postsWithKey("onceguard-" + beforeCall))
                .as("the second run left the payment to the customer: one call, made by the first run").isEqualTo(1);
        assertThat(yookassa().postsWithKey("onceguard-" + afterCall)).isEqualTo(2);
    }

    /** A payment attempt whose process died right after the claim: CREATED, its record's lease run out. */
    private String crashedAt(String orderId) {
        String paymentId = "pay_" + UUID.randomUUID();
        execute(db, "INSERT INTO payments (payment_id, order_id, user_id, status, amount, currency, provider, "
                        + "provider_idempotency_key, payment_method_token, created_at, updated_at) "
                        + "VALUES (?, ?, ?, 'CREATED', 1500.00, 'RUB', 'yookassa', ?, 'yookassa_redirect', now(), now())",
                paymentId, orderId, user, "onceguard-" + paymentId);
        execute(db, """
                INSERT INTO idempotency_records (user_id, operation, idempotency_key, fingerprint, status, recovery_point,
                    lease_expires_at, resource_type, resource_id, request_id, created_at, expires_at)
                VALUES (?, 'create-payment', ?, ?, 'PROCESSING', 'payment_created', now() - interval '1 minute',
                        'payment', ?, 'killed', now(), now() + interval '24 hours')""",
                user, "killed-" + paymentId, "b".repeat(64), paymentId);
        return paymentId;
    }
}
