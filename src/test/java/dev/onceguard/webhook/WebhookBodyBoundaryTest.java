package dev.onceguard.webhook;

import dev.onceguard.Database;
import dev.onceguard.platform.StandardWebhooksSignature;
import dev.onceguard.payment.stripe.StripeEvents;
import io.agroal.api.AgroalDataSource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;
import io.restassured.response.Response;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.UUID;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * An authentic delivery whose body is not JSON is MALFORMED_JSON; JSON that is not an event keeps its own code; a
 * string PostgreSQL cannot store, or an id longer than the inbox keeps, is a 400. None of them is stored.
 */
@QuarkusTest
class WebhookBodyBoundaryTest {

    private static final String SANDBOX_SECRET = "whsec_c2FuZGJveC13ZWJob29rLXRlc3Qtc2VjcmV0LTMyYiE=";
    private static final String STRIPE_SECRET = "whsec_onceguard_test";

    @Inject
    AgroalDataSource dataSource;

    private final String marker = "evt_boundary_" + UUID.randomUUID();

    private static Response sandbox(String webhookId, String body) {
        long now = Instant.now().getEpochSecond();
        return given().contentType("application/json")
                .header(StandardWebhooksSignature.ID, webhookId)
                .header(StandardWebhooksSignature.TIMESTAMP, String.valueOf(now))
                .header(StandardWebhooksSignature.SIGNATURE, StandardWebhooksSignature.sign(webhookId, now,
                        body.getBytes(StandardCharsets.UTF_8), SANDBOX_SECRET))
                .body(body.getBytes(StandardCharsets.UTF_8))
                .post("/webhooks/sandbox");
    }

    private static Response stripe(String body) {
        return given().contentType("application/json")
                .header("Stripe-Signature", StripeEvents.signature(STRIPE_SECRET, Instant.now().getEpochSecond(), body))
                .body(body.getBytes(StandardCharsets.UTF_8))
                .post("/webhooks/stripe");
    }

    private String sandboxEvent(String id, String providerPaymentId) {
        return """
                {"id":"%s","type":"payment.succeeded","created":"2026-11-29T20:31:07.123Z","data":{"object":\
                {"id":"%s","status":"SUCCEEDED","amount":"1500.00","currency":"RUB",\
                "metadata":{"payment_id":"pay_x","order_id":"ord_x"}}}}""".formatted(id, providerPaymentId);
    }

    private long stored() {
        return Database.count(dataSource, "SELECT count(*) FROM webhook_inbox WHERE event_id LIKE ?", marker + "%");
    }

    @Test
    void aSignedEventOver64KiBSentInChunksIsRefusedWith413() throws Exception {
        String event = sandboxEvent(marker, "sbx_" + UUID.randomUUID());
        byte[] body = (event + " ".repeat(64 * 1024)).getBytes(StandardCharsets.UTF_8);
        long now = Instant.now().getEpochSecond();
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://localhost:" + RestAssured.port + "/webhooks/sandbox"))
                .version(HttpClient.Version.HTTP_1_1)
                .header("Content-Type", "application/json")
                .header(StandardWebhooksSignature.ID, marker)
                .header(StandardWebhooksSignature.TIMESTAMP, String.valueOf(now))
                .header(StandardWebhooksSignature.SIGNATURE,
                        StandardWebhooksSignature.sign(marker, now, body, SANDBOX_SECRET))
                // a stream of unknown length goes out chunked, with no Content-Length to refuse it by
                .POST(HttpRequest.BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(body))).build();

        HttpResponse<String> refused = HttpClient.newHttpClient().send(request, HttpResponse.BodyHandlers.ofString());

        assertThat(refused.statusCode()).isEqualTo(413);
        assertThat(refused.headers().firstValue("Content-Type")).hasValue("application/problem+json");
        assertThat(refused.body()).contains("\"PAYLOAD_TOO_LARGE\"");
        assertThat(stored()).isZero();
    }

    @Test
    void aSignedFormBodyIsRefusedAsAMediaTypeAndNotStored() throws Exception {
        HttpClient client = HttpClient.newHttpClient();
        for (String type : List.of("application/x-www-form-urlencoded", "multipart/form-data; boundary=x")) {
            byte[] body = ("id=" + marker + "&type=payment.succeeded").getBytes(StandardCharsets.UTF_8);
            long now = Instant.now().getEpochSecond();
            HttpResponse<String> answer = client.send(HttpRequest.newBuilder(URI.create("http://localhost:"
                            + RestAssured.port + "/webhooks/sandbox"))
                    .header("Content-Type", type)
                    .header(StandardWebhooksSignature.ID, marker)
                    .header(StandardWebhooksSignature.TIMESTAMP, String.valueOf(now))
                    .header(StandardWebhooksSignature.SIGNATURE, StandardWebhooksSignature.sign(marker, now, body,
                            SANDBOX_SECRET))
                    .POST(HttpRequest.BodyPublishers.ofByteArray(body)).build(), HttpResponse.BodyHandlers.ofString());

            assertThat(answer.statusCode()).as(type).isEqualTo(415);
            assertThat(answer.headers().firstValue("Content-Type")).hasValueSatisfying(
                    value -> assertThat(value).startsWith("application/problem+json"));
            assertThat(answer.body()).contains("\"code\":\"UNSUPPORTED_MEDIA_TYPE\"");
        }
        assertThat(stored()).isZero();
    }

    @Test
    void aSignedBodyThatIsNotJsonIsMalformedJson() {
        for (String body : List.of("not json", "{\"id\":", "", "{\"id\":\"" + marker + "\"} trailing")) {
            sandbox(marker, body).then().statusCode(400).contentType("application/problem+json")
                    .body("code", org.hamcrest.Matchers.equalTo("MALFORMED_JSON"));
            stripe(body).then().statusCode(400).body("code", org.hamcrest.Matchers.equalTo("MALFORMED_JSON"));
        }
        assertThat(stored()).isZero();
    }

    @Test
    void wellFormedJsonThatIsNotAnEventKeepsItsOwnCode() {
        for (String body : List.of("[]", "{\"id\":\"" + marker + "\"}", "42")) {
            sandbox(marker, body).then().statusCode(400).body("code", org.hamcrest.Matchers.equalTo("WEBHOOK_EVENT_INVALID"));
            stripe(body).then().statusCode(400).body("code", org.hamcrest.Matchers.equalTo("WEBHOOK_EVENT_INVALID"));
        }
        assertThat(stored()).isZero();
    }

    @Test
    void aSignedEventWithAStringPostgresCannotStoreIsRefusedNamingTheField() {
        for (String bad : List.of("\\u0000", "x\\ud800", "\\udfff")) {
            String id = marker + "_" + UUID.randomUUID();
            Response sandbox = sandbox(id, sandboxEvent(id, "sbx_" + bad));
            assertThat(sandbox.statusCode()).isEqualTo(400);
            assertThat(sandbox.jsonPath().getString("code")).isEqualTo("VALIDATION_FAILED");
            assertThat(sandbox.jsonPath().getString("errors[0].field")).isEqualTo("data.object.id");

            String intent = StripeEvents.paymentIntent("pi_" + UUID.randomUUID(), "succeeded", 150000, "rub")
                    .replace("\"card\"", "\"card" + bad + "\"");
            Response stripe = stripe(StripeEvents.event(id, "payment_intent.succeeded", intent));
            assertThat(stripe.statusCode()).isEqualTo(400);
            assertThat(stripe.jsonPath().getString("errors[0].field")).isEqualTo("data.object.payment_method_types[0]");
        }
        assertThat(stored()).isZero();
    }

    @Test
    void anEventIdLongerThanTheInboxKeepsIsAnInvalidEvent() {
        String id = marker + "_" + "a".repeat(3000);
        sandbox(id, sandboxEvent(id, "sbx_" + UUID.randomUUID())).then().statusCode(400)
                .body("code", org.hamcrest.Matchers.equalTo("WEBHOOK_EVENT_INVALID"));
        stripe(StripeEvents.event(id, "payment_intent.succeeded",
                StripeEvents.paymentIntent("pi_" + UUID.randomUUID(), "succeeded", 150000, "rub")))
                .then().statusCode(400).body("code", org.hamcrest.Matchers.equalTo("WEBHOOK_EVENT_INVALID"));
        assertThat(stored()).isZero();
    }
}
