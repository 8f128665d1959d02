package dev.onceguard.payment.stripe;

import io.opentelemetry.api.OpenTelemetry;
import dev.onceguard.platform.HttpClientSpans;
import java.io.UncheckedIOException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.onceguard.payment.provider.CreatePayment;
import dev.onceguard.payment.provider.ProviderEvent;
import dev.onceguard.payment.provider.ProviderOutcomeUnknown;
import dev.onceguard.payment.provider.ProviderPayment;
import dev.onceguard.payment.provider.ProviderStatus;
import dev.onceguard.payment.provider.WebhookRejected;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.math.BigDecimal;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The Stripe adapter against a local stub of the Stripe API and Stripe-shaped events; never the network. */
class StripePaymentProviderTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    private static final String API_KEY = "sk_test_51Hs0mEkeyNeverLogged";
    private static final String SECRET = "whsec_test_endpoint_secret";
    private static final String TOKEN = "pm_card_visa";
    private static final Duration TIMEOUT = Duration.ofMillis(500);

    private StripeStub stripe;
    private StripePaymentProvider provider;

    @BeforeEach
    void start() throws IOException {
        stripe = new StripeStub();
        provider = providerAt(stripe.baseUrl());
    }

    @AfterEach
    void stop() {
        stripe.close();
    }

    private static StripePaymentProvider providerAt(URI baseUrl) {
        return new StripePaymentProvider(Optional.of(API_KEY), Optional.of(SECRET), baseUrl, StripePaymentProvider.PINNED_API_VERSION, TIMEOUT,
                new HttpClientSpans(OpenTelemetry.noop()));
    }

    private static CreatePayment payment(String key) {
        return new CreatePayment(key, new BigDecimal("1500.00"), "RUB", TOKEN, "ord_01JD", "pay_01JD");
    }

    @Test
    void createConfirmsAPaymentIntentFormEncodedWithTheIdempotencyKeyAndTheApiKey() throws Exception {
        ProviderPayment answer = provider.create(payment("onceguard-pay_01JD"));

        assertThat(answer.status()).isEqualTo(ProviderStatus.SUCCEEDED);
        assertThat(answer.providerPaymentId()).startsWith("pi_");
        StripeStub.Recorded request = stripe.requests.get(0);
        assertThat(request.method()).isEqualTo("POST");
        assertThat(request.path()).isEqualTo("/v1/payment_intents");
        assertThat(request.headers()).containsEntry("idempotency-key", "onceguard-pay_01JD")
                .containsEntry("authorization", "Bearer " + API_KEY)
                .containsEntry("content-type", "application/x-www-form-urlencoded");
        assertThat(request.form()).containsEntry("amount", "150000")
                .containsEntry("currency", "rub")
                .containsEntry("payment_method", TOKEN)
                .containsEntry("confirm", "true")
                .containsEntry("metadata[order_id]", "ord_01JD")
                .containsEntry("metadata[payment_id]", "pay_01JD");
    }

    @Test
    void aRetryReusesTheIdempotencyKeyAndGetsTheSamePaymentIntent() throws Exception {
        ProviderPayment first = provider.create(payment("onceguard-pay_retry"));
        ProviderPayment retry = provider.create(payment("onceguard-pay_retry"));

        assertThat(retry).isEqualTo(first);
        assertThat(stripe.requests).hasSize(2)
                .allSatisfy(r -> assertThat(r.headers()).containsEntry("idempotency-key", "onceguard-pay_retry"));
        assertThat(stripe.intents).hasSize(1);
    }

    @Test
    void paymentIntentStatusesMapToProviderStatuses() throws Exception {
        Map<String, ProviderStatus> expected = Map.of(
                "succeeded", ProviderStatus.SUCCEEDED,
                "processing", ProviderStatus.PENDING,
                "requires_action", ProviderStatus.REQUIRES_ACTION,
                "requires_confirmation", ProviderStatus.PENDING,
                "requires_payment_method", ProviderStatus.FAILED,
                "canceled", ProviderStatus.CANCELED);
        for (var mapping : expected.entrySet()) {
            stripe.createWithStatus(mapping.getKey());
            ProviderPayment created = provider.create(payment("onceguard-" + mapping.getKey()));

            assertThat(created.status()).as(mapping.getKey()).isEqualTo(mapping.getValue());
            assertThat(provider.retrieve(created.providerPaymentId()).status()).as(mapping.getKey())
                    .isEqualTo(mapping.getValue());
        }
    }

    @Test
    void everyCallPinsTheConfiguredStripeVersion() throws Exception {
        ProviderPayment created = provider.create(payment("onceguard-pay_pinned"));
        provider.retrieve(created.providerPaymentId());
        StripePaymentProvider newer = new StripePaymentProvider(Optional.of(API_KEY), Optional.of(SECRET), stripe.baseUrl(),
                "2025-03-31.basil", TIMEOUT, new HttpClientSpans(OpenTelemetry.noop()));
        newer.create(payment("onceguard-pay_newer"));

        assertThat(stripe.requests).extracting(r -> r.headers().get("stripe-version"))
                .containsExactly(StripePaymentProvider.PINNED_API_VERSION, StripePaymentProvider.PINNED_API_VERSION,
                        "2025-03-31.basil");
    }

    @Test
    void anIntentWaitingForA3DSecureChallengeCarriesItsClientSecretAndNextAction() throws Exception {
        stripe.createWithStatus("requires_action");

        ProviderPayment answer = provider.create(payment("onceguard-pay_3ds"));

        assertThat(answer.status()).isEqualTo(ProviderStatus.REQUIRES_ACTION);
        assertThat(answer.customerAction().clientSecret()).isEqualTo(answer.providerPaymentId() + "_secret_Xq2");
        assertThat(answer.customerAction().nextAction().path("type").asText()).isEqualTo("use_stripe_sdk");
        assertThat(answer.customerAction().toString()).doesNotContain("secret_Xq2");
        assertThat(provider.retrieve(answer.providerPaymentId()).customerAction()).isEqualTo(answer.customerAction());
    }

    @Test
    void anEventCarriesTheProviderKeyAndTheMetadataOnceguardSent() throws Exception {
        String body = StripeEvents.event("evt_1Meta", "payment_intent.succeeded",
                StripeEvents.paymentIntent("pi_meta", "succeeded", 150000, "rub"));

        ProviderEvent event = parsed(body.getBytes(StandardCharsets.UTF_8));

        assertThat(event.providerIdempotencyKey()).isEqualTo("onceguard-pay_1");
        assertThat(event.paymentId()).isEqualTo("pay_1");
        assertThat(event.orderId()).isEqualTo("ord_1");
        assertThat(event.amount()).isEqualByComparingTo("1500.00");
        assertThat(event.currency()).isEqualTo("RUB");
    }

    @Test
    void retrieveAsksForThePaymentIntentById() throws Exception {
        ProviderPayment created = provider.create(payment("onceguard-pay_lookup"));

        ProviderPayment current = provider.retrieve(created.providerPaymentId());

        assertThat(current).isEqualTo(created);
        StripeStub.Recorded request = stripe.requests.get(1);
        assertThat(request.method()).isEqualTo("GET");
        assertThat(request.path()).isEqualTo("/v1/payment_intents/" + created.providerPaymentId());
        assertThat(request.headers()).containsEntry("authorization", "Bearer " + API_KEY);
        assertThatThrownBy(() -> provider.retrieve("pi_missing")).isInstanceOf(ProviderOutcomeUnknown.class);
    }

    @Test
    void theOrdersPaymentsAreFoundBySearchingTheOrderIdMetadata() throws Exception {
        String succeeded = StripeEvents.paymentIntent("pi_7Lkd", "succeeded", 150000, "rub");
        String declined = StripeEvents.paymentIntent("pi_8Lkd", "requires_payment_method", 150000, "rub");
        stripe.answer(request -> StripeStub.Reply.json(200,
                "{\"object\":\"search_result\",\"data\":[" + succeeded + "," + declined + "],\"has_more\":false}"));

        List<ProviderPayment> found = provider.paymentsOfOrder("ord_01JD");

        assertThat(found).containsExactly(new ProviderPayment("pi_7Lkd", ProviderStatus.SUCCEEDED),
                new ProviderPayment("pi_8Lkd", ProviderStatus.FAILED));
        StripeStub.Recorded request = stripe.requests.get(0);
        assertThat(request.method()).isEqualTo("GET");
        assertThat(request.path()).isEqualTo("/v1/payment_intents/search");
        assertThat(request.query()).isEqualTo("limit=100&query=metadata['order_id']:'ord_01JD'");
        assertThat(request.headers()).containsEntry("authorization", "Bearer " + API_KEY);
    }

    @Test
    void aCardDeclineIsAFailureOfTheDeclinedPaymentIntent() throws Exception {
        stripe.answer(request -> StripeStub.Reply.json(402, """
                {"error": {"type": "card_error", "code": "card_declined", "decline_code": "generic_decline",
                  "message": "Your card was declined.",
                  "payment_intent": %s}}""".formatted(StripeEvents.paymentIntent("pi_declined", "requires_payment_method", 150000, "rub"))));

        ProviderPayment answer = provider.create(payment("onceguard-pay_declined"));

        assertThat(answer).isEqualTo(new ProviderPayment("pi_declined", ProviderStatus.FAILED));
    }

    @Test
    void aPaymentMethodStripeRefusesIsAFailureWithNoPaymentIntent() throws Exception {
        stripe.answer(request -> StripeStub.Reply.json(400, """
                {"error": {"type": "invalid_request_error", "code": "resource_missing", "param": "payment_method",
                  "message": "No such PaymentMethod"}}"""));

        ProviderPayment answer = provider.create(payment("onceguard-pay_refused"));

        assertThat(answer).isEqualTo(new ProviderPayment(null, ProviderStatus.FAILED));
    }

    @Test
    void anAnswerLaterThanTheTimeoutLeavesTheOutcomeUnknown() {
        stripe.answer(request -> new StripeStub.Reply(200,
                StripeEvents.paymentIntent("pi_slow", "succeeded", 150000, "rub"), TIMEOUT.toMillis() * 3));

        assertThatThrownBy(() -> provider.create(payment("onceguard-pay_slow")))
                .isInstanceOf(ProviderOutcomeUnknown.class)
                .hasMessageContaining("did not answer")
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain(API_KEY, TOKEN));
    }

    @Test
    void serverErrorsRateLimitsAndConcurrentUseOfTheKeyLeaveTheOutcomeUnknown() {
        for (int status : new int[] {500, 502, 503, 429, 409}) {
            stripe.answer(request -> StripeStub.Reply.json(status,
                    "{\"error\":{\"type\":\"api_error\",\"message\":\"Something went wrong\"}}"));

            assertThatThrownBy(() -> provider.create(payment("onceguard-pay_" + status))).as("status %d", status)
                    .isInstanceOf(ProviderOutcomeUnknown.class)
                    .hasMessageContaining(String.valueOf(status))
                    .satisfies(e -> assertThat(e.getMessage()).doesNotContain(API_KEY, TOKEN));
        }
    }

    @Test
    void aRefusedConnectionLeavesTheOutcomeUnknown() throws Exception {
        int closedPort;
        try (ServerSocket socket = new ServerSocket(0)) {
            closedPort = socket.getLocalPort();
        }
        StripePaymentProvider unreachable = providerAt(URI.create("http://127.0.0.1:" + closedPort));

        assertThatThrownBy(() -> unreachable.create(payment("onceguard-pay_unreachable")))
                .isInstanceOf(ProviderOutcomeUnknown.class);
    }

    @Test
    void stripeIsEnabledOnlyWithBothTheApiKeyAndTheWebhookSecret() {
        URI url = URI.create("https://api.stripe.com");
        assertThat(provider.enabled()).isTrue();
        assertThat(new StripePaymentProvider(Optional.empty(), Optional.of(SECRET), url, StripePaymentProvider.PINNED_API_VERSION, TIMEOUT, new HttpClientSpans(OpenTelemetry.noop())).enabled()).isFalse();
        assertThat(new StripePaymentProvider(Optional.of(API_KEY), Optional.empty(), url, StripePaymentProvider.PINNED_API_VERSION, TIMEOUT, new HttpClientSpans(OpenTelemetry.noop())).enabled()).isFalse();
        assertThat(new StripePaymentProvider(Optional.of(API_KEY), Optional.of(" "), url, StripePaymentProvider.PINNED_API_VERSION, TIMEOUT, new HttpClientSpans(OpenTelemetry.noop())).enabled()).isFalse();
    }

    @Test
    void amountsAreSentInTheCurrencysMinorUnit() {
        assertThat(StripePaymentProvider.minorUnits(new BigDecimal("1500.00"), "RUB")).isEqualTo(150000);
        assertThat(StripePaymentProvider.minorUnits(new BigDecimal("19.99"), "usd")).isEqualTo(1999);
        assertThat(StripePaymentProvider.minorUnits(new BigDecimal("1500.00"), "JPY")).isEqualTo(1500);
        assertThat(StripePaymentProvider.fromMinorUnits(150000, "RUB")).isEqualTo(new BigDecimal("1500.00"));
        assertThat(StripePaymentProvider.fromMinorUnits(1500, "JPY")).isEqualTo(new BigDecimal("1500.00"));
    }

    // ---- Stripe-Signature ----

    private static String succeededEvent() {
        return StripeEvents.event("evt_3MtwBwLkdIwHu7ix0fZ3rD9S", "payment_intent.succeeded",
                StripeEvents.paymentIntent("pi_3MtwBwLkdIwHu7ix28a3tqPa", "succeeded", 150000, "rub"));
    }

    private void verify(String body, String signatureHeader) throws WebhookRejected {
        provider.verifyWebhook(body.getBytes(StandardCharsets.UTF_8), Map.of("stripe-signature", signatureHeader));
    }

    @Test
    void aDeliverySignedWithTheEndpointSecretIsAuthentic() throws Exception {
        String body = succeededEvent();
        long now = Instant.now().getEpochSecond();

        verify(body, StripeEvents.signature(SECRET, now, body));
        verify(body, "t=" + now + ",v1=" + StripeEvents.v1(SECRET, now, body) + ",v0=6ffbb59b2300aae63f272406069a9788598b792a944a07aba816edb039989a39");
    }

    @Test
    void anyMatchingV1SignatureIsEnoughWhileSecretsRoll() throws Exception {
        String body = succeededEvent();
        long now = Instant.now().getEpochSecond();

        verify(body, "t=" + now + ",v1=" + StripeEvents.v1("whsec_old_secret", now, body)
                + ",v1=" + StripeEvents.v1(SECRET, now, body));
    }

    @Test
    void forgedTamperedOldOrMissingSignaturesAreRejected() {
        String body = succeededEvent();
        long now = Instant.now().getEpochSecond();
        long old = now - 301;
        String tampered = body.replace("150000", "1");

        assertThatThrownBy(() -> verify(body, StripeEvents.signature("whsec_forged", now, body)))
                .isInstanceOf(WebhookRejected.class).hasMessageContaining("no v1 signature matches");
        assertThatThrownBy(() -> verify(tampered, StripeEvents.signature(SECRET, now, body)))
                .isInstanceOf(WebhookRejected.class).hasMessageContaining("no v1 signature matches");
        assertThatThrownBy(() -> verify(body, StripeEvents.signature(SECRET, old, body)))
                .isInstanceOf(WebhookRejected.class).hasMessageContaining("tolerance");
        assertThatThrownBy(() -> verify(body, "t=" + now + ",v0=" + StripeEvents.v1(SECRET, now, body)))
                .isInstanceOf(WebhookRejected.class);
        assertThatThrownBy(() -> verify(body, "t=" + now + ",v1=not-hex"))
                .isInstanceOf(WebhookRejected.class);
        assertThatThrownBy(() -> verify(body, "garbage"))
                .isInstanceOf(WebhookRejected.class);
        assertThatThrownBy(() -> provider.verifyWebhook(body.getBytes(StandardCharsets.UTF_8), Map.of()))
                .isInstanceOf(WebhookRejected.class).hasMessageContaining("no Stripe-Signature");
    }

    @Test
    void rejectionsNeverQuoteTheSecret() {
        String body = succeededEvent();
        long now = Instant.now().getEpochSecond();

        assertThatThrownBy(() -> verify(body, StripeEvents.signature("whsec_forged", now, body)))
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain(SECRET, StripeEvents.v1(SECRET, now, body)));
    }

    // ---- events ----

    private ProviderEvent parse(String body) throws WebhookRejected {
        return parsed(body.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void paymentIntentEventsReportTheIntentsNewStatus() throws Exception {
        Map<String, ProviderStatus> expected = Map.of(
                "payment_intent.succeeded", ProviderStatus.SUCCEEDED,
                "payment_intent.processing", ProviderStatus.PENDING,
                "payment_intent.payment_failed", ProviderStatus.FAILED,
                "payment_intent.canceled", ProviderStatus.CANCELED);
        for (var mapping : expected.entrySet()) {
            ProviderEvent event = parse(StripeEvents.event("evt_1", mapping.getKey(),
                    StripeEvents.paymentIntent("pi_3MtwBw", "processing", 150000, "rub")));

            assertThat(event.status()).as(mapping.getKey()).isEqualTo(mapping.getValue());
            assertThat(event.providerPaymentId()).isEqualTo("pi_3MtwBw");
        }
        ProviderEvent succeeded = parse(succeededEvent());
        assertThat(succeeded).isEqualTo(new ProviderEvent("evt_3MtwBwLkdIwHu7ix0fZ3rD9S", "payment_intent.succeeded",
                "pi_3MtwBwLkdIwHu7ix28a3tqPa", ProviderStatus.SUCCEEDED, new BigDecimal("1500.00"), "RUB",
                Instant.ofEpochSecond(1680064028), "onceguard-pay_1", "pay_1", "ord_1"));
    }

    @Test
    void otherEventTypesAreReadButNotActedOn() throws Exception {
        ProviderEvent created = parse(StripeEvents.event("evt_2", "payment_intent.created",
                StripeEvents.paymentIntent("pi_3MtwBw", "requires_payment_method", 150000, "rub")));
        ProviderEvent charge = parse(StripeEvents.event("evt_3", "charge.succeeded",
                "{\"id\":\"ch_3MtwBw\",\"object\":\"charge\",\"amount\":150000,\"currency\":\"rub\",\"payment_intent\":\"pi_3MtwBw\"}"));

        assertThat(created.status()).isNull();
        assertThat(created.providerPaymentId()).isEqualTo("pi_3MtwBw");
        assertThat(charge.status()).isNull();
        assertThat(charge.providerPaymentId()).isNull();
        assertThat(charge.type()).isEqualTo("charge.succeeded");
    }

    @Test
    void bodiesThatAreNotStripeEventsAreRejected() {
        assertThatThrownBy(() -> parse("[1,2]")).isInstanceOf(WebhookRejected.class);
        assertThatThrownBy(() -> parse("{\"id\":\"evt_1\"}")).isInstanceOf(WebhookRejected.class);
        assertThatThrownBy(() -> parse(StripeEvents.event("evt_1", "payment_intent.succeeded", "{\"object\":\"charge\"}")))
                .isInstanceOf(WebhookRejected.class);
    }

    /** The event in {@code body}, read as JSON first as the webhook resource does. */
    private ProviderEvent parsed(byte[] body) throws WebhookRejected {
        try {
            return provider.parseEvent(JSON.readTree(body));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
