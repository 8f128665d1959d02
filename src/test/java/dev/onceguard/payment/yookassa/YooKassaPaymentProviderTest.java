package dev.onceguard.payment.yookassa;

import io.opentelemetry.api.OpenTelemetry;
import dev.onceguard.platform.HttpClientSpans;
import java.io.UncheckedIOException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.onceguard.payment.ProviderCallMetrics;
import dev.onceguard.payment.provider.CreatePayment;
import dev.onceguard.payment.provider.CreateRefund;
import dev.onceguard.payment.provider.ProviderEvent;
import dev.onceguard.payment.provider.ProviderOutcomeUnknown;
import dev.onceguard.payment.provider.ProviderPayment;
import dev.onceguard.payment.provider.ProviderRefund;
import dev.onceguard.payment.provider.ProviderStatus;
import dev.onceguard.payment.provider.ReadBackFailed;
import dev.onceguard.payment.provider.RefundFact;
import dev.onceguard.payment.provider.RefundStatus;
import dev.onceguard.payment.provider.WebhookRejected;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The YooKassa adapter against the local stub of YooKassa's API and YooKassa-shaped notifications; never the network. */
class YooKassaPaymentProviderTest {

    private static final String RETURN_URL = "https://shop.example/return";
    private static final List<String> PUBLISHED = List.of("185.71.76.0/27", "185.71.77.0/27", "77.75.153.0/25",
            "77.75.156.11", "77.75.156.35", "77.75.154.128/25", "2a02:5180::/32");
    private static final String FROM_YOOKASSA = "185.71.76.17";
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration TIMEOUT = Duration.ofSeconds(2);

    private YooKassaStub yookassa;
    private SimpleMeterRegistry registry;
    private YooKassaPaymentProvider provider;

    @BeforeEach
    void start() throws IOException {
        yookassa = new YooKassaStub();
        registry = new SimpleMeterRegistry();
        provider = providerAt(yookassa.baseUrl(), TIMEOUT);
    }

    @AfterEach
    void stop() {
        yookassa.close();
    }

    private YooKassaPaymentProvider providerAt(String baseUrl, Duration timeout) {
        return new YooKassaPaymentProvider(Optional.of(YooKassaStub.SHOP_ID), Optional.of(YooKassaStub.SECRET_KEY),
                baseUrl, Optional.of(RETURN_URL), PUBLISHED, timeout, new ProviderCallMetrics(registry),
                new HttpClientSpans(OpenTelemetry.noop()));
    }

    private static CreatePayment payment(String key) {
        return new CreatePayment(key, new BigDecimal("1500.00"), "RUB", "tok_unused", "ord_01JD", "pay_01JD");
    }

    private static byte[] notification(String event, String paymentId) {
        ObjectNode body = YooKassaStub.shape("notification-payment-succeeded.json");
        body.put("event", event);
        ((ObjectNode) body.get("object")).put("id", paymentId);
        return body.toString().getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void createSendsTheRecordedShapeWithBasicAuthAndTheIdempotenceKeyAndAsksTheCustomerToConfirm() throws Exception {
        ProviderPayment answer = provider.create(payment("onceguard-pay_01JD"));

        assertThat(answer.status()).isEqualTo(ProviderStatus.REQUIRES_ACTION);
        assertThat(answer.customerAction().confirmationUrl())
                .isEqualTo("https://yoomoney.ru/api-pages/v2/payment-confirm/epl?orderId=" + answer.providerPaymentId());
        assertThat(answer.customerAction().toString()).doesNotContain("yoomoney.ru");
        YooKassaStub.Recorded request = yookassa.requests.get(0);
        assertThat(request.method()).isEqualTo("POST");
        assertThat(request.path()).isEqualTo("/v3/payments");
        assertThat(request.headers()).containsEntry("idempotence-key", "onceguard-pay_01JD")
                .containsEntry("authorization", "Basic " + Base64.getEncoder().encodeToString(
                        (YooKassaStub.SHOP_ID + ":" + YooKassaStub.SECRET_KEY).getBytes(StandardCharsets.UTF_8)))
                .containsEntry("content-type", "application/json");
        assertThat(request.json()).isEqualTo(YooKassaStub.shape("create-payment-request.json"));
        assertThat(request.body()).doesNotContain("tok_unused");
    }

    @Test
    void aRetryWithTheSameKeyGetsTheSamePaymentAndCreatesNoOther() throws Exception {
        ProviderPayment first = provider.create(payment("onceguard-pay_retry"));
        ProviderPayment retry = provider.create(payment("onceguard-pay_retry"));

        assertThat(retry.providerPaymentId()).isEqualTo(first.providerPaymentId());
        assertThat(yookassa.postsWithKey("onceguard-pay_retry")).isEqualTo(2);
        assertThat(yookassa.paymentsWithKey("onceguard-pay_retry")).isEqualTo(1);
    }

    @Test
    void paymentStatusesMapToProviderStatusesAndWaitingForCaptureStaysUnknown() throws Exception {
        String id = provider.create(payment("onceguard-statuses")).providerPaymentId();

        yookassa.settle(id, "succeeded");
        assertThat(provider.retrieve(id).status()).isEqualTo(ProviderStatus.SUCCEEDED);
        yookassa.settle(id, "canceled");
        assertThat(provider.retrieve(id).status()).isEqualTo(ProviderStatus.CANCELED);
        yookassa.settle(id, "pending");
        yookassa.payment(id).remove("confirmation");
        assertThat(provider.retrieve(id).status()).isEqualTo(ProviderStatus.PENDING);
        yookassa.settle(id, "waiting_for_capture");
        assertThatThrownBy(() -> provider.retrieve(id)).isInstanceOf(ProviderOutcomeUnknown.class)
                .hasMessageContaining("waiting_for_capture");
        assertThat(YooKassaPaymentProvider.paymentOf(YooKassaStub.shape("payment-canceled.json")))
                .extracting(ProviderPayment::status, ProviderPayment::failureReason)
                .containsExactly(ProviderStatus.CANCELED, "YooKassa cancellation: insufficient_funds (by payment_network)");
        assertThat(YooKassaPaymentProvider.paymentOf(YooKassaStub.shape("payment-succeeded.json")).status())
                .isEqualTo(ProviderStatus.SUCCEEDED);
    }

    @Test
    void aTimeoutOrA500IsUnknownAndTheRetryWithTheSameKeyFindsThePaymentTheFirstCallMade() throws Exception {
        yookassa.answer((request, stub) -> {
            YooKassaStub.Reply made = YooKassaStub.likeYooKassa(request, stub);
            return new YooKassaStub.Reply(made.status(), made.body(), TIMEOUT.toMillis() + 1_000);
        });
        assertThatThrownBy(() -> provider.create(payment("onceguard-pay_slow"))).isInstanceOf(ProviderOutcomeUnknown.class)
                .hasMessageContaining("did not answer").hasMessageNotContaining(YooKassaStub.SECRET_KEY);
        yookassa.answer((request, stub) -> YooKassaStub.Reply.json(500,
                YooKassaStub.shape("error-internal-server-error.json").toString()));
        assertThatThrownBy(() -> provider.create(payment("onceguard-pay_slow"))).isInstanceOf(ProviderOutcomeUnknown.class)
                .hasMessageContaining("500");
        yookassa.answerLikeYooKassa();

        ProviderPayment settled = provider.create(payment("onceguard-pay_slow"));

        assertThat(settled.status()).isEqualTo(ProviderStatus.REQUIRES_ACTION);
        assertThat(yookassa.postsWithKey("onceguard-pay_slow")).isEqualTo(3);
        assertThat(yookassa.paymentsWithKey("onceguard-pay_slow")).isEqualTo(1);
        assertThat(registry.find("onceguard.provider.calls").tag("provider", "yookassa").counters())
                .as("create and retrieve are measured where the flow calls them, around the adapter").isEmpty();
    }

    @Test
    void aRefusedCreateFailsWithoutAPaymentAndWrongCredentialsNeverEchoTheKey() throws Exception {
        yookassa.answer((request, stub) -> YooKassaStub.Reply.json(400,
                YooKassaStub.shape("error-invalid-request.json").toString()));
        assertThat(provider.create(payment("onceguard-pay_refused")).status()).isEqualTo(ProviderStatus.FAILED);
        yookassa.answerLikeYooKassa();
        YooKassaPaymentProvider wrongKey = new YooKassaPaymentProvider(Optional.of(YooKassaStub.SHOP_ID),
                Optional.of("test_wrong_secret"), yookassa.baseUrl(), Optional.of(RETURN_URL), PUBLISHED,
                TIMEOUT, new ProviderCallMetrics(registry), new HttpClientSpans(OpenTelemetry.noop()));

        assertThat(wrongKey.create(payment("onceguard-pay_wrong_key")).status()).isEqualTo(ProviderStatus.FAILED);
        assertThatThrownBy(() -> wrongKey.retrieve("23d93cac-000f-5000-8000-126628f15141"))
                .isInstanceOf(ProviderOutcomeUnknown.class).hasMessageNotContaining("test_wrong_secret");
    }

    @Test
    void itIsEnabledOnlyWithShopIdSecretKeyAndReturnUrl() {
        assertThat(provider.enabled()).isTrue();
        assertThat(new YooKassaPaymentProvider(Optional.of(YooKassaStub.SHOP_ID), Optional.empty(), yookassa.baseUrl(),
                Optional.of(RETURN_URL), PUBLISHED, Duration.ofSeconds(1), new ProviderCallMetrics(registry),
                new HttpClientSpans(OpenTelemetry.noop())).enabled())
                .isFalse();
        assertThat(new YooKassaPaymentProvider(Optional.of(YooKassaStub.SHOP_ID), Optional.of(YooKassaStub.SECRET_KEY),
                yookassa.baseUrl(), Optional.of(" "), PUBLISHED, Duration.ofSeconds(1), new ProviderCallMetrics(registry),
                new HttpClientSpans(OpenTelemetry.noop()))
                .enabled()).isFalse();
    }

    @Test
    void notificationsAreAcceptedOnlyFromThePublishedNetworks() throws Exception {
        for (String allowed : List.of("185.71.76.0", "185.71.76.31", "185.71.77.5", "77.75.153.127", "77.75.156.11",
                "77.75.156.35", "77.75.154.200", "2a02:5180:0:1::7", "::ffff:185.71.76.3")) {
            provider.verifySource(allowed);
        }
        for (String foreign : List.of("185.71.76.32", "77.75.156.12", "77.75.154.127", "127.0.0.1", "10.0.0.1",
                "2a02:5181::1", "yookassa.ru", "")) {
            assertThatThrownBy(() -> provider.verifySource(foreign)).as(foreign).isInstanceOf(WebhookRejected.class);
        }
        assertThatThrownBy(() -> provider.verifySource(null)).isInstanceOf(WebhookRejected.class);
    }

    @Test
    void theEventIsReadFromTheReadBackNotFromTheNotification() throws Exception {
        String id = provider.create(payment("onceguard-pay_lie")).providerPaymentId();
        yookassa.settle(id, "canceled");

        byte[] kept = provider.readBack(notification("payment.succeeded", id), FROM_YOOKASSA);
        ProviderEvent event = parsed(kept);

        assertThat(event.eventId()).isEqualTo("payment.succeeded:" + id);
        assertThat(event.type()).isEqualTo("payment.succeeded");
        assertThat(event.status()).as("the API says canceled; the notification's word counts for nothing")
                .isEqualTo(ProviderStatus.CANCELED);
        assertThat(event.providerPaymentId()).isEqualTo(id);
        assertThat(event.amount()).isEqualByComparingTo("1500.00");
        assertThat(event.currency()).isEqualTo("RUB");
        assertThat(event.paymentId()).isEqualTo("pay_01JD");
        assertThat(event.orderId()).isEqualTo("ord_01JD");
        JsonNode stored = JSON.readTree(kept);
        assertThat(stored.path("sourceAddress").asText()).isEqualTo(FROM_YOOKASSA);
        assertThat(stored.path("notification").path("event").asText()).isEqualTo("payment.succeeded");
        assertThat(stored.path("readBack").path("status").asText()).isEqualTo("canceled");
        assertThat(stored.path("readBack").path("cancellation_details").path("reason").asText())
                .isEqualTo("insufficient_funds");
        assertThat(stored.path("readBack").fieldNames()).toIterable()
                .allSatisfy(f -> assertThat(YooKassaPaymentProvider.PINNED_FIELDS).contains(f));
        assertThat(yookassa.readsOf(id)).isEqualTo(1);
        assertThat(registry.get("onceguard.provider.calls").tag("provider", "yookassa").tag("call", "read_back")
                .tag("outcome", "answered").counter().count()).isEqualTo(1);
    }

    @Test
    void aNotificationTheApiDoesNotConfirmYetOrWhoseReadBackFailsIsKeptForTheNextDelivery() throws Exception {
        String id = provider.create(payment("onceguard-pay_early")).providerPaymentId();

        assertThatThrownBy(() -> provider.readBack(notification("payment.succeeded", id), FROM_YOOKASSA))
                .isInstanceOfSatisfying(ReadBackFailed.class, e -> {
                    assertThat(e.hint().eventId()).isEqualTo("payment.succeeded:" + id);
                    assertThat(e.getMessage()).contains("pending");
                    assertThatThrownBy(() -> parsed(e.kept())).isInstanceOf(WebhookRejected.class);
                });
        yookassa.answer((request, stub) -> YooKassaStub.Reply.json(500,
                YooKassaStub.shape("error-internal-server-error.json").toString()));
        assertThatThrownBy(() -> provider.readBack(notification("payment.succeeded", id), FROM_YOOKASSA))
                .isInstanceOfSatisfying(ReadBackFailed.class, e -> {
                    assertThat(new String(e.kept(), StandardCharsets.UTF_8)).contains("\"readBackError\"")
                            .contains(FROM_YOOKASSA).doesNotContain(YooKassaStub.SECRET_KEY);
                    assertThat(e.hint().providerPaymentId()).isEqualTo(id);
                });
        assertThat(registry.get("onceguard.provider.calls").tag("call", "read_back").tag("outcome", "unknown")
                .counter().count()).isEqualTo(1);
    }

    /** A refund of 600.00 of a succeeded 1500.00 payment, made at the stub; its provider refund id. */
    private String refundAtYooKassa(String paid) throws Exception {
        yookassa.settle(paid, "succeeded");
        return provider.refund(new CreateRefund("onceguard-ref_01JD", paid, new BigDecimal("600.00"), "RUB",
                "ref_01JD", "pay_01JD")).providerRefundId();
    }

    private static byte[] refundNotification(String refundId, String paymentId, String amount) {
        return ("{\"type\":\"notification\",\"event\":\"refund.succeeded\",\"object\":{\"id\":\"" + refundId
                + "\",\"payment_id\":\"" + paymentId + "\",\"status\":\"succeeded\",\"amount\":{\"value\":\""
                + amount + "\",\"currency\":\"RUB\"}}}").getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void aRefundNotificationIsReadBackAndTheEventIsWhatTheApiSays() throws Exception {
        String paid = provider.create(payment("onceguard-pay_01JD")).providerPaymentId();
        String refundId = refundAtYooKassa(paid);

        byte[] kept = provider.readBack(refundNotification(refundId, paid, "1500.00"), FROM_YOOKASSA);
        ProviderEvent event = parsed(kept);

        assertThat(yookassa.requests).filteredOn(r -> r.method().equals("GET")
                && r.path().equals("/v3/refunds/" + refundId)).hasSize(1);
        assertThat(event.eventId()).isEqualTo("refund.succeeded:" + refundId);
        assertThat(event.status()).isNull();
        assertThat(event.providerPaymentId()).isEqualTo(paid);
        assertThat(event.refund()).isEqualTo(new RefundFact(refundId, "ref_01JD", RefundStatus.SUCCEEDED,
                new BigDecimal("600.00"), "RUB"));
        JsonNode stored = JSON.readTree(kept);
        assertThat(stored.path("readBack").fieldNames()).toIterable()
                .isSubsetOf(YooKassaPaymentProvider.PINNED_REFUND_FIELDS);
    }

    @Test
    void aRefundNotificationTheApiContradictsSettlesWhatTheApiSaysOrWaits() throws Exception {
        String paid = provider.create(payment("onceguard-pay_01JD")).providerPaymentId();
        String refundId = refundAtYooKassa(paid);

        yookassa.settleRefund(refundId, "canceled");
        ProviderEvent canceled = parsed(provider.readBack(refundNotification(refundId, paid, "600.00"),
                FROM_YOOKASSA));
        assertThat(canceled.refund().status()).isEqualTo(RefundStatus.FAILED);

        yookassa.settleRefund(refundId, "pending");
        assertThatThrownBy(() -> provider.readBack(refundNotification(refundId, paid, "600.00"), FROM_YOOKASSA))
                .isInstanceOfSatisfying(ReadBackFailed.class, e -> assertThat(new String(e.kept(),
                        StandardCharsets.UTF_8)).contains("the notification says succeeded, the API says pending"));
    }

    @Test
    void aBodyThatIsNotANotificationIsRefused() throws Exception {
        byte[] kept = provider.readBack("{\"event\":\"payment.succeeded\"}".getBytes(StandardCharsets.UTF_8), FROM_YOOKASSA);

        assertThatThrownBy(() -> parsed(kept)).isInstanceOf(WebhookRejected.class);
        assertThat(yookassa.requests).isEmpty();
    }

    @Test
    void aRefundIsMadeOnceUnderItsKeyFoundByItsDescriptionAndNeverAboveThePayment() throws Exception {
        String paid = provider.create(payment("onceguard-pay_01JD")).providerPaymentId();
        yookassa.settle(paid, "succeeded");
        CreateRefund refund = new CreateRefund("onceguard-ref_01JD", paid, new BigDecimal("600.00"), "RUB", "ref_01JD",
                "pay_01JD");

        ProviderRefund first = provider.refund(refund);
        ProviderRefund again = provider.refund(refund);

        assertThat(first.status()).isEqualTo(RefundStatus.SUCCEEDED);
        assertThat(again).isEqualTo(first);
        assertThat(yookassa.refundsOf(paid)).isEqualTo(1);
        YooKassaStub.Recorded sent = yookassa.requests.stream().filter(r -> r.path().equals("/v3/refunds")).findFirst()
                .orElseThrow();
        assertThat(sent.headers().get("idempotence-key")).isEqualTo("onceguard-ref_01JD");
        assertThat(sent.json().path("amount").path("value").asText()).isEqualTo("600.00");
        assertThat(sent.json().path("payment_id").asText()).isEqualTo(paid);
        assertThat(provider.findRefund(paid, "ref_01JD")).contains(first);
        assertThat(provider.findRefund(paid, "ref_other")).isEmpty();

        ProviderRefund tooMuch = provider.refund(new CreateRefund("onceguard-ref_02JD", paid, new BigDecimal("900.01"),
                "RUB", "ref_02JD", "pay_01JD"));
        assertThat(tooMuch).isEqualTo(new ProviderRefund(null, RefundStatus.FAILED));
        assertThat(yookassa.refundsOf(paid)).isEqualTo(1);
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
