package dev.onceguard.platform;

import dev.onceguard.TestTokens;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.UUID;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** Every API request is a server span; a caller's {@code traceparent} makes it part of the caller's trace. */
@QuarkusTest
class RequestTracingTest {

    private static final AttributeKey<String> ROUTE = AttributeKey.stringKey("http.route");

    @Inject
    InMemorySpanExporter spans;

    @Test
    void anOrderCreatedUnderACallersTraceparentContinuesThatTrace() {
        String traceId = UUID.randomUUID().toString().replace("-", "");
        String parentSpanId = traceId.substring(0, 16);

        given().header("Authorization", TestTokens.bearer(TestTokens.newUser()))
                .header("Idempotency-Key", UUID.randomUUID().toString())
                .header("traceparent", "00-" + traceId + "-" + parentSpanId + "-01")
                .contentType("application/json").body("{\"items\":[{\"productId\":\"p-184\",\"quantity\":1}],\"currency\":\"RUB\"}")
                .post("/api/orders").then().statusCode(201);

        SpanData server = await().atMost(Duration.ofSeconds(10)).until(() -> serverSpansOf(traceId), list -> !list.isEmpty())
                .get(0);
        assertThat(server.getParentSpanId()).isEqualTo(parentSpanId);
        assertThat(server.getAttributes().get(ROUTE)).isEqualTo("/api/orders");
    }

    @Test
    void aRequestWithoutTraceparentStartsATraceOfItsOwn() {
        given().header("Authorization", TestTokens.bearer(TestTokens.newUser())).get("/api/products").then().statusCode(200);

        SpanData server = await().atMost(Duration.ofSeconds(10)).until(() -> spans.getFinishedSpanItems().stream()
                        .filter(span -> span.getKind() == SpanKind.SERVER && "/api/products".equals(span.getAttributes().get(ROUTE)))
                        .toList(), list -> !list.isEmpty()).get(0);
        assertThat(server.getTraceId()).matches("[0-9a-f]{32}").isNotEqualTo("0".repeat(32));
        assertThat(server.getParentSpanContext().isValid()).isFalse();
    }

    private List<SpanData> serverSpansOf(String traceId) {
        return spans.getFinishedSpanItems().stream()
                .filter(span -> span.getKind() == SpanKind.SERVER && span.getTraceId().equals(traceId)).toList();
    }
}
