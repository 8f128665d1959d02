package dev.onceguard.webhook;

import dev.onceguard.payment.stripe.StripeEvents;
import dev.onceguard.webhook.Deliveries.Paid;
import io.agroal.api.AgroalDataSource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.Response;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

import java.time.Instant;

import static dev.onceguard.Database.count;
import static dev.onceguard.Database.execute;
import static dev.onceguard.webhook.Deliveries.newEventId;
import static dev.onceguard.webhook.Deliveries.orderWithPayment;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;

/** Stripe deliveries through {@code POST /webhooks/stripe}, signed as Stripe signs them (test profile secret). */
@QuarkusTest
class StripeWebhookDeliveryTest {

    private static final String SECRET = "whsec_onceguard_test";

    @Inject
    AgroalDataSource db;

    private static Response deliver(String body, String signature) {
        return given().contentType("application/json; charset=utf-8")
                .header("Stripe-Signature", signature)
                .body(body)
                .post("/webhooks/stripe");
    }

    @Test
    void aSignedPaymentIntentSucceededEventPaysTheOrder() {
        Paid paid = orderWithPayment(db, "stripe", "PENDING");
        String eventId = newEventId();
        String body = StripeEvents.event(eventId, "payment_intent.succeeded",
                StripeEvents.paymentIntent(paid.providerPaymentId(), "succeeded", 150000, "rub"));

        Response first = deliver(body, StripeEvents.signature(SECRET, Instant.now().getEpochSecond(), body));
        Response again = deliver(body, StripeEvents.signature(SECRET, Instant.now().getEpochSecond(), body));

        assertThat(first.statusCode()).isEqualTo(200);
        assertThat(first.path("status").toString()).isEqualTo("processed");
        assertThat(again.path("status").toString()).isEqualTo("duplicate");
        assertThat(count(db, "SELECT count(*) FROM orders WHERE order_id = ? AND status = 'PAID'", paid.orderId())).isEqualTo(1);
        assertThat(count(db, "SELECT count(*) FROM state_transitions WHERE subject_type = 'order' AND subject_id = ?"
                + " AND to_status = 'PAID'", paid.orderId())).isEqualTo(1);
        assertThat(count(db, "SELECT count(*) FROM webhook_inbox WHERE provider = 'stripe' AND event_id = ?"
                + " AND event_type = 'payment_intent.succeeded' AND delivery_count = 2", eventId)).isEqualTo(1);
    }

    /** A signed event whose currency is no ISO 4217 code is unreadable input (400), not a server error. */
    @Test
    void aSignedEventWithAnUnknownCurrencyIsInvalidAndChangesNothing() {
        Paid paid = orderWithPayment(db, "stripe", "PENDING");
        String eventId = newEventId();
        String body = StripeEvents.event(eventId, "payment_intent.succeeded",
                StripeEvents.paymentIntent(paid.providerPaymentId(), "succeeded", 150000, "zzzz"));

        Response refused = deliver(body, StripeEvents.signature(SECRET, Instant.now().getEpochSecond(), body));

        assertThat(refused.statusCode()).isEqualTo(400);
        assertThat(refused.path("code").toString()).isEqualTo("WEBHOOK_EVENT_INVALID");
        assertThat(count(db, "SELECT count(*) FROM orders WHERE order_id = ? AND status = 'PAID'", paid.orderId())).isZero();
    }

    @Test
    void theStoredPayloadKeepsNoClientSecretAndTheEventIsApplied() {
        Paid paid = orderWithPayment(db, "stripe", "PENDING");
        String eventId = newEventId();
        String body = StripeEvents.event(eventId, "payment_intent.succeeded",
                StripeEvents.paymentIntent(paid.providerPaymentId(), "succeeded", 150000, "rub"));
        assertThat(body).contains("\"client_secret\": \"" + paid.providerPaymentId() + "_secret_Xq2\"");

        Response delivered = deliver(body, StripeEvents.signature(SECRET, Instant.now().getEpochSecond(), body));

        assertThat(delivered.path("status").toString()).isEqualTo("processed");
        assertThat(count(db, "SELECT count(*) FROM webhook_inbox WHERE provider = 'stripe' AND event_id = ?"
                + " AND payload #>> '{data,object,client_secret}' = '[not shown]'"
                + " AND position('_secret_' IN CAST(payload AS text)) = 0"
                + " AND payload #>> '{data,object,metadata,payment_id}' = 'pay_1'"
                + " AND payload #>> '{data,object,amount}' = '150000'", eventId)).isEqualTo(1);
        assertThat(count(db, "SELECT count(*) FROM orders WHERE order_id = ? AND status = 'PAID'", paid.orderId()))
                .isEqualTo(1);
    }

    @Test
    void anEventForAPaymentThatDoesNotKnowItsIntentYetIsMatchedByTheProviderKeyAndApplied() {
        Paid paid = orderWithPayment(db, "stripe", "UNKNOWN");
        execute(db, "UPDATE payments SET provider_payment_id = NULL WHERE payment_id = ?", paid.paymentId());
        String intentId = "pi_late_" + paid.paymentId();
        String body = StripeEvents.event(newEventId(), "payment_intent.succeeded",
                        StripeEvents.paymentIntent(intentId, "succeeded", 150000, "rub"))
                .replace("\"idempotency_key\": \"onceguard-pay_1\"", "\"idempotency_key\": \"onceguard-" + paid.paymentId() + "\"");

        Response response = deliver(body, StripeEvents.signature(SECRET, Instant.now().getEpochSecond(), body));

        assertThat(response.path("status").toString()).isEqualTo("processed");
        assertThat(count(db, "SELECT count(*) FROM payments WHERE payment_id = ? AND status = 'SUCCEEDED'"
                + " AND provider_payment_id = ?", paid.paymentId(), intentId)).isEqualTo(1);
    }

    @Test
    void aDeliverySignedWithAnotherSecretIsRejected() {
        Paid paid = orderWithPayment(db, "stripe", "PENDING");
        String body = StripeEvents.event(newEventId(), "payment_intent.succeeded",
                StripeEvents.paymentIntent(paid.providerPaymentId(), "succeeded", 150000, "rub"));
        long inboxRows = count(db, "SELECT count(*) FROM webhook_inbox");

        Response response = deliver(body, StripeEvents.signature("whsec_forged", Instant.now().getEpochSecond(), body));

        assertThat(response.statusCode()).isEqualTo(401);
        assertThat(response.path("code").toString()).isEqualTo("WEBHOOK_SIGNATURE_INVALID");
        assertThat(count(db, "SELECT count(*) FROM webhook_inbox")).isEqualTo(inboxRows);
        assertThat(count(db, "SELECT count(*) FROM payments WHERE payment_id = ? AND status = 'PENDING'", paid.paymentId()))
                .isEqualTo(1);
    }
}
