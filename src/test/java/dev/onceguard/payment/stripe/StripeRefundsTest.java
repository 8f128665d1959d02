package dev.onceguard.payment.stripe;

import io.opentelemetry.api.OpenTelemetry;
import dev.onceguard.platform.HttpClientSpans;
import dev.onceguard.payment.provider.WebhookRejected;
import java.io.UncheckedIOException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.onceguard.payment.provider.CreateRefund;
import dev.onceguard.payment.provider.ProviderEvent;
import dev.onceguard.payment.provider.ProviderOutcomeUnknown;
import dev.onceguard.payment.provider.ProviderRefund;
import dev.onceguard.payment.provider.RefundFact;
import dev.onceguard.payment.provider.RefundStatus;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The Stripe adapter's refunds against the local Stripe stub, with the requests it records; never the network. */
class StripeRefundsTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    private static final String API_KEY = "sk_test_51Hs0mEkeyNeverLogged";

    private StripeStub stripe;
    private StripePaymentProvider provider;

    @BeforeEach
    void start() throws IOException {
        stripe = new StripeStub();
        provider = new StripePaymentProvider(Optional.of(API_KEY), Optional.of("whsec_test_endpoint_secret"),
                stripe.baseUrl(), StripePaymentProvider.PINNED_API_VERSION, Duration.ofMillis(500),
                new HttpClientSpans(OpenTelemetry.noop()));
    }

    @AfterEach
    void stop() {
        stripe.close();
    }

    private static String refund(String id, String status, long amount) {
        return """
                {"id":"%s","object":"refund","amount":%d,"currency":"rub","payment_intent":"pi_3MtwBw",
                 "status":"%s","metadata":{"refund_id":"ref_01JD","payment_id":"pay_01JD"}}""".formatted(id, amount,
                status);
    }

    private static CreateRefund command() {
        return new CreateRefund("onceguard-ref_01JD", "pi_3MtwBw", new BigDecimal("500.00"), "RUB", "ref_01JD",
                "pay_01JD");
    }

    @Test
    void aRefundIsPostedFormEncodedWithItsIdempotencyKeyAndThePinnedVersion() throws Exception {
        stripe.answer(request -> StripeStub.Reply.json(200, refund("re_1", "succeeded", 50000)));

        ProviderRefund answer = provider.refund(command());

        assertThat(answer).isEqualTo(new ProviderRefund("re_1", RefundStatus.SUCCEEDED));
        StripeStub.Recorded request = stripe.requests.get(0);
        assertThat(request.method()).isEqualTo("POST");
        assertThat(request.path()).isEqualTo("/v1/refunds");
        assertThat(request.headers()).containsEntry("idempotency-key", "onceguard-ref_01JD")
                .containsEntry("stripe-version", StripePaymentProvider.PINNED_API_VERSION)
                .containsEntry("authorization", "Bearer " + API_KEY)
                .containsEntry("content-type", "application/x-www-form-urlencoded");
        assertThat(request.form()).containsEntry("payment_intent", "pi_3MtwBw").containsEntry("amount", "50000")
                .containsEntry("metadata[refund_id]", "ref_01JD").containsEntry("metadata[payment_id]", "pay_01JD");
    }

    @Test
    void refundStatusesMapAndARefusalIsAFailedRefund() throws Exception {
        stripe.answer(request -> StripeStub.Reply.json(200, refund("re_2", "pending", 50000)));
        assertThat(provider.refund(command()).status()).isEqualTo(RefundStatus.PENDING);

        stripe.answer(request -> StripeStub.Reply.json(400,
                "{\"error\":{\"type\":\"invalid_request_error\",\"code\":\"amount_too_large\"}}"));
        assertThat(provider.refund(command())).isEqualTo(new ProviderRefund(null, RefundStatus.FAILED));

        stripe.answer(request -> StripeStub.Reply.json(500, "{\"error\":{\"type\":\"api_error\"}}"));
        assertThatThrownBy(() -> provider.refund(command())).isInstanceOf(ProviderOutcomeUnknown.class);
    }

    @Test
    void aRefundIsFoundAgainByTheRefundIdOnceguardSent() throws Exception {
        stripe.answer(request -> StripeStub.Reply.json(200, "{\"object\":\"list\",\"data\":["
                + refund("re_other", "succeeded", 100).replace("ref_01JD", "ref_other") + ","
                + refund("re_3", "succeeded", 50000) + "],\"has_more\":false}"));

        Optional<ProviderRefund> found = provider.findRefund("pi_3MtwBw", "ref_01JD");
        Optional<ProviderRefund> missing = provider.findRefund("pi_3MtwBw", "ref_absent");

        assertThat(found).contains(new ProviderRefund("re_3", RefundStatus.SUCCEEDED));
        assertThat(missing).isEmpty();
        assertThat(stripe.requests.get(0).method()).isEqualTo("GET");
        assertThat(stripe.requests.get(0).path()).isEqualTo("/v1/refunds");
    }

    @Test
    void refundEventsCarryTheRefundAndItsPayment() throws Exception {
        for (String type : new String[] {"refund.updated", "refund.failed"}) {
            String status = type.equals("refund.failed") ? "failed" : "succeeded";
            ProviderEvent event = parsed(StripeEvents.event("evt_r", type, refund("re_4", status, 50000))
                    .getBytes(StandardCharsets.UTF_8));

            assertThat(event.status()).isNull();
            assertThat(event.providerPaymentId()).isEqualTo("pi_3MtwBw");
            assertThat(event.refund()).isEqualTo(new RefundFact("re_4", "ref_01JD",
                    type.equals("refund.failed") ? RefundStatus.FAILED : RefundStatus.SUCCEEDED,
                    new BigDecimal("500.00"), "RUB"));
        }
        ProviderEvent chargeRefunded = parsed(StripeEvents.event("evt_c", "charge.refunded",
                "{\"id\":\"ch_1\",\"object\":\"charge\",\"payment_intent\":\"pi_3MtwBw\",\"amount_refunded\":50000,"
                        + "\"refunds\":{\"object\":\"list\",\"data\":[" + refund("re_5", "succeeded", 50000) + "]}}")
                .getBytes(StandardCharsets.UTF_8));
        ProviderEvent chargeWithoutRefunds = parsed(StripeEvents.event("evt_d", "charge.refunded",
                "{\"id\":\"ch_1\",\"object\":\"charge\",\"payment_intent\":\"pi_3MtwBw\",\"amount_refunded\":50000}")
                .getBytes(StandardCharsets.UTF_8));

        assertThat(chargeRefunded.refund().providerRefundId()).isEqualTo("re_5");
        assertThat(chargeWithoutRefunds.refund()).isNull();
        assertThat(chargeWithoutRefunds.status()).isNull();
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
