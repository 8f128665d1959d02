package dev.onceguard.payment.stripe;

import dev.onceguard.TestTokens;
import io.agroal.api.AgroalDataSource;
import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.restassured.response.Response;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import static dev.onceguard.Database.count;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Paying with Stripe (the local stub) where the card needs a 3-D Secure challenge: the client gets 202
 * REQUIRES_ACTION with what it needs, the webhook settles the payment, and every call pins the configured API version
 * and is measured.
 */
@QuarkusTest
@TestProfile(StripeRequiresActionTest.WithStripe.class)
class StripeRequiresActionTest {

    static final String API_VERSION = "2025-03-31.basil";
    private static final String SECRET = "whsec_onceguard_test";

    public static class WithStripe implements QuarkusTestProfile {

        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("onceguard.payments.provider", "stripe", "onceguard.stripe.api-version", API_VERSION);
        }

        @Override
        public List<TestResourceEntry> testResources() {
            return List.of(new TestResourceEntry(Stub.class));
        }
    }

    /** Starts the Stripe stub before the application and points the adapter at it. */
    public static class Stub implements QuarkusTestResourceLifecycleManager {

        static StripeStub stripe;

        @Override
        public Map<String, String> start() {
            try {
                stripe = new StripeStub();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            return Map.of("onceguard.stripe.base-url", stripe.baseUrl().toString());
        }

        @Override
        public void stop() {
            stripe.close();
        }
    }

    @Inject
    AgroalDataSource db;

    private final String user = TestTokens.newUser();

    private Response pay(String orderId, String key) {
        return given().header("Authorization", TestTokens.bearer(user)).header("Idempotency-Key", key)
                .contentType("application/json").body("{\"paymentMethodToken\":\"pm_card_threeDSecure2Required\"}")
                .post("/api/orders/" + orderId + "/payments");
    }

    @Test
    void aCardThatNeedsA3DSecureChallengeIsAnswered202WithItsClientSecretAndSettledByTheWebhook() {
        Stub.stripe.createWithStatus("requires_action");
        String orderId = given().header("Authorization", TestTokens.bearer(user))
                .header("Idempotency-Key", UUID.randomUUID().toString()).contentType("application/json")
                .body("{\"items\":[{\"productId\":\"p-184\",\"quantity\":1}],\"currency\":\"RUB\"}")
                .post("/api/orders").then().statusCode(201).extract().path("orderId");
        String key = UUID.randomUUID().toString();

        Response challenge = pay(orderId, key);
        String intentId = challenge.path("providerPaymentId");
        Response retryWhileWaiting = pay(orderId, key);
        long waitingForLeaseRecovery = count(db, "SELECT count(*) FROM idempotency_records WHERE idempotency_key = ?"
                + " AND recovery_point = 'requires_action' AND recover_after > now() + interval '9 minutes'", key);
        long amount = Long.parseLong(Stub.stripe.requests.stream().filter(r -> r.method().equals("POST")).findFirst()
                .orElseThrow().form().get("amount"));
        String body = StripeEvents.event("evt_3ds_" + UUID.randomUUID(), "payment_intent.succeeded",
                StripeEvents.paymentIntent(intentId, "succeeded", amount, "rub"));
        Response webhook = given().contentType("application/json")
                .header("Stripe-Signature", StripeEvents.signature(SECRET, Instant.now().getEpochSecond(), body))
                .body(body).post("/webhooks/stripe");
        Response afterwards = pay(orderId, key);

        assertThat(challenge.statusCode()).isEqualTo(202);
        assertThat(challenge.<String>path("status")).isEqualTo("REQUIRES_ACTION");
        assertThat(challenge.<String>path("clientSecret")).isEqualTo(intentId + "_secret_Xq2");
        assertThat(challenge.<String>path("nextAction.type")).isEqualTo("use_stripe_sdk");
        assertThat(retryWhileWaiting.statusCode()).isEqualTo(202);
        assertThat(retryWhileWaiting.<String>path("clientSecret")).isEqualTo(intentId + "_secret_Xq2");
        assertThat(waitingForLeaseRecovery).as("lease recovery leaves the challenge to the customer and the webhook for"
                + " onceguard.payments.customer-action-wait (10m); the client's retry above asked at once").isEqualTo(1);
        assertThat(webhook.path("status").toString()).isEqualTo("processed");
        assertThat(afterwards.statusCode()).isEqualTo(201);
        assertThat(afterwards.header("Idempotent-Replayed")).isEqualTo("true");
        assertThat(afterwards.<String>path("status")).isEqualTo("SUCCEEDED");
        assertThat(afterwards.asString()).doesNotContain("clientSecret", "_secret_");
        assertThat(count(db, "SELECT count(*) FROM idempotency_records WHERE idempotency_key = ?"
                + " AND position('_secret_' in convert_from(response_body, 'UTF8')) = 0", key)).isEqualTo(1);
        assertThat(count(db, "SELECT count(*) FROM state_transitions WHERE subject_type = 'payment' AND subject_id = ?"
                + " AND from_status = 'REQUIRES_ACTION' AND to_status = 'SUCCEEDED' AND cause = 'webhook'",
                challenge.<String>path("paymentId"))).isEqualTo(1);
        assertThat(Stub.stripe.requests).extracting(r -> r.headers().get("stripe-version")).isNotEmpty()
                .containsOnly(API_VERSION);
        assertThat(Stub.stripe.intents).hasSize(1);
        String metrics = given().get("/q/metrics").asString();
        assertThat(metrics).containsPattern("onceguard_provider_calls_total\\{[^}]*call=\"create\"[^}]*outcome=\"requires_action\""
                        + "[^}]*provider=\"stripe\"[^}]*\\} [1-9]")
                // the series exist from start-up at zero: a call shows as a count of at least one
                .containsPattern("onceguard_provider_calls_total\\{[^}]*call=\"retrieve\"[^}]*provider=\"stripe\"[^}]*\\} [1-9]")
                .containsPattern("onceguard_provider_call_duration_seconds_count\\{[^}]*call=\"create\"[^}]*provider=\"stripe\"[^}]*\\} [1-9]");
    }
}
