package dev.onceguard;

import dev.onceguard.outbox.OutboxRelay;
import io.agroal.api.AgroalDataSource;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.UUID;
import java.util.function.Predicate;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.oneOf;

/**
 * One trace per intent: a payment's request, its call to the provider (the sandbox, over HTTP), the provider's webhook
 * that settles it later and the licence the outbox relay grants for it all carry one trace id; the relay's run is a
 * trace of its own, which the licence's span links to.
 */
@QuarkusTest
class PaymentTraceTest {

    private static final AttributeKey<String> ROUTE = AttributeKey.stringKey("http.route");
    private static final AttributeKey<String> URL = AttributeKey.stringKey("url.full");
    private static final Duration DEADLINE = Duration.ofSeconds(10);

    @Inject
    InMemorySpanExporter spans;

    @Inject
    SandboxWebhooks webhooks;

    @Inject
    OutboxRelay relay;

    @Inject
    AgroalDataSource db;

    private final String user = TestTokens.newUser();

    @Test
    void aPaymentSettledByItsWebhookAndItsLicenceShareTheTraceOfThePaymentRequest() {
        String orderId = given().header("Authorization", TestTokens.bearer(user))
                .header("Idempotency-Key", UUID.randomUUID().toString())
                .contentType("application/json")
                .body("{\"items\":[{\"productId\":\"" + PaidOrders.EBOOK + "\",\"quantity\":1}],\"currency\":\"RUB\"}")
                .post("/api/orders").then().statusCode(201).extract().path("orderId");

        // 202 (outcome unknown) when a cold sandbox answers after the call's timeout: its webhook settles it all the same
        given().header("Authorization", TestTokens.bearer(user))
                .header("Idempotency-Key", UUID.randomUUID().toString())
                .contentType("application/json").body("{\"paymentMethodToken\":\"tok_pending\"}")
                .post("/api/orders/" + orderId + "/payments").then().statusCode(oneOf(201, 202));
        String traceId = awaitSpan(span -> span.getKind() == SpanKind.SERVER
                && "/api/orders/{orderId}/payments".equals(span.getAttributes().get(ROUTE))
                && attributeContains(span, orderId)).getTraceId();

        // the create, not the listing of the order's payments that an attempt makes first (decision 0045)
        SpanData sandboxCall = awaitSpan(inTrace(traceId, SpanKind.CLIENT, "/sandbox/v1/payments")
                .and(span -> "POST".equals(span.getAttributes().get(AttributeKey.stringKey("http.request.method")))));
        SpanData sandboxServer = awaitSpan(span -> span.getKind() == SpanKind.SERVER
                && span.getTraceId().equals(traceId) && span.getParentSpanId().equals(sandboxCall.getSpanId()));

        webhooks.deliverDueWithin(Duration.ofSeconds(5));
        SpanData delivery = awaitSpan(inTrace(traceId, SpanKind.CLIENT, "/webhooks/sandbox"));
        assertThat(delivery.getParentSpanId()).isEqualTo(sandboxServer.getSpanId());
        SpanData webhook = awaitSpan(span -> span.getKind() == SpanKind.SERVER
                && span.getParentSpanId().equals(delivery.getSpanId()));
        assertThat(webhook.getTraceId()).isEqualTo(traceId);
        await().atMost(DEADLINE).until(() -> PaidOrders.orderStatus(db, orderId), "PAID"::equals);

        SpanData licence = await().atMost(DEADLINE).until(() -> {
            relay.runNow();
            return spans.getFinishedSpanItems().stream().filter(span -> span.getName().equals("outbox effect license")
                    && span.getTraceId().equals(traceId)).toList();
        }, found -> !found.isEmpty()).get(0);
        assertThat(licence.getAttributes().get(AttributeKey.longKey("onceguard.outbox.event_id"))).isNotNull();
        String relayRun = licence.getLinks().get(0).getSpanContext().getSpanId();
        SpanData run = awaitSpan(span -> span.getSpanId().equals(relayRun));
        assertThat(run.getName()).isEqualTo("job outbox-relay");
        assertThat(run.getParentSpanContext().isValid()).isFalse();
    }

    private static boolean attributeContains(SpanData span, String text) {
        return span.getAttributes().asMap().values().stream().anyMatch(value -> value.toString().contains(text));
    }

    private static Predicate<SpanData> inTrace(String traceId, SpanKind kind, String path) {
        return span -> span.getTraceId().equals(traceId) && span.getKind() == kind && attributeContains(span, path);
    }

    private SpanData awaitSpan(Predicate<SpanData> wanted) {
        return await().atMost(DEADLINE).until(() -> spans.getFinishedSpanItems().stream().filter(wanted).toList(),
                found -> !found.isEmpty()).get(0);
    }
}
