package dev.onceguard.platform;

import com.sun.net.httpserver.HttpServer;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;

/** A {@code java.net.http} call is a CLIENT span whose context the peer receives as {@code traceparent}. */
class HttpClientSpansTest {

    private final InMemorySpanExporter exported = InMemorySpanExporter.create();
    private final List<String> traceparents = new CopyOnWriteArrayList<>();
    private HttpServer peer;
    private OpenTelemetry openTelemetry;

    @BeforeEach
    void start() throws IOException {
        peer = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        peer.createContext("/", exchange -> {
            traceparents.add(exchange.getRequestHeaders().getFirst("traceparent"));
            int status = exchange.getRequestURI().getPath().startsWith("/broken") ? 503 : 200;
            exchange.sendResponseHeaders(status, -1);
            exchange.close();
        });
        peer.start();
        openTelemetry = OpenTelemetrySdk.builder().setTracerProvider(SdkTracerProvider.builder()
                .addSpanProcessor(SimpleSpanProcessor.create(exported)).build()).build();
    }

    @AfterEach
    void stop() {
        peer.stop(0);
    }

    @Test
    void aCallSendsTheTraceparentOfItsClientSpanWhoseUrlHasNoQuery() throws Exception {
        HttpRequest request = HttpRequest.newBuilder(peerUri("/v1/payment_intents?client_secret=pi_secret_1"))
                .POST(HttpRequest.BodyPublishers.noBody()).build();

        int status = new HttpClientSpans(openTelemetry).send(HttpClient.newHttpClient(), request,
                HttpResponse.BodyHandlers.discarding()).statusCode();

        SpanData span = exported.getFinishedSpanItems().get(0);
        assertThat(status).isEqualTo(200);
        assertThat(span.getKind()).isEqualTo(SpanKind.CLIENT);
        assertThat(traceparents).containsExactly("00-" + span.getTraceId() + "-" + span.getSpanId() + "-01");
        assertThat(span.getAttributes().get(HttpClientSpans.METHOD)).isEqualTo("POST");
        assertThat(span.getAttributes().get(HttpClientSpans.URL)).isEqualTo(peerUri("/v1/payment_intents").toString());
        assertThat(span.getAttributes().get(HttpClientSpans.STATUS)).isEqualTo(200L);
    }

    @Test
    void anAsynchronousCallContinuesTheStoredTraceItIsGivenAndA5xxIsAnError() {
        String stored = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
        HttpRequest request = HttpRequest.newBuilder(peerUri("/broken")).GET().build();

        new HttpClientSpans(openTelemetry).sendAsync(HttpClient.newHttpClient(), request,
                HttpResponse.BodyHandlers.discarding(), TraceContexts.continuing(stored)).join();

        SpanData span = exported.getFinishedSpanItems().get(0);
        assertThat(span.getTraceId()).isEqualTo("4bf92f3577b34da6a3ce929d0e0e4736");
        assertThat(span.getParentSpanId()).isEqualTo("00f067aa0ba902b7");
        assertThat(traceparents.get(0)).startsWith("00-4bf92f3577b34da6a3ce929d0e0e4736-" + span.getSpanId());
        assertThat(span.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
        assertThat(span.getAttributes().get(HttpClientSpans.STATUS)).isEqualTo(503L);
    }

    private URI peerUri(String pathAndQuery) {
        return URI.create("http://127.0.0.1:" + peer.getAddress().getPort() + pathAndQuery);
    }
}
