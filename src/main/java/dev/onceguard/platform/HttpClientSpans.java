package dev.onceguard.platform;

import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.propagation.TextMapSetter;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.concurrent.CompletableFuture;

/**
 * Calls made with {@code java.net.http} (the payment providers' adapters, the sandbox's webhook sender), each in a
 * CLIENT span that sends its {@code traceparent}, so that the peer's work joins the caller's trace. The span carries
 * the method, the URL without its query (nothing a provider might read as a secret) and the answer's status.
 */
@ApplicationScoped
public class HttpClientSpans {

    static final AttributeKey<String> METHOD = AttributeKey.stringKey("http.request.method");
    static final AttributeKey<String> URL = AttributeKey.stringKey("url.full");
    static final AttributeKey<String> SERVER = AttributeKey.stringKey("server.address");
    static final AttributeKey<Long> STATUS = AttributeKey.longKey("http.response.status_code");
    static final AttributeKey<String> ERROR = AttributeKey.stringKey("error.type");
    private static final TextMapSetter<HttpRequest.Builder> HEADERS = HttpRequest.Builder::setHeader;

    private final Tracer tracer;

    @Inject
    public HttpClientSpans(OpenTelemetry openTelemetry) {
        this.tracer = openTelemetry.getTracer("dev.onceguard");
    }

    public <T> HttpResponse<T> send(HttpClient http, HttpRequest request, HttpResponse.BodyHandler<T> answer)
            throws IOException, InterruptedException {
        Span span = start(request, Context.current());
        try {
            HttpResponse<T> response = http.send(carrying(request, span), answer);
            answered(span, response.statusCode());
            return response;
        } catch (IOException | InterruptedException | RuntimeException e) {
            failed(span, e);
            throw e;
        } finally {
            span.end();
        }
    }

    /**
     * Sends {@code request} asynchronously in a CLIENT span, a child of {@code parent} (the stored context of the work
     * it continues), linked to the current span (the job run sending it) when that is another one.
     */
    public <T> CompletableFuture<HttpResponse<T>> sendAsync(HttpClient http, HttpRequest request,
                                                            HttpResponse.BodyHandler<T> answer, Context parent) {
        Span span = start(request, parent);
        return http.sendAsync(carrying(request, span), answer).whenComplete((response, failure) -> {
            if (failure != null) {
                failed(span, failure);
            } else {
                answered(span, response.statusCode());
            }
            span.end();
        });
    }

    private Span start(HttpRequest request, Context parent) {
        URI uri = request.uri();
        var builder = tracer.spanBuilder(request.method()).setSpanKind(SpanKind.CLIENT).setParent(parent)
                .setAttribute(METHOD, request.method())
                .setAttribute(URL, withoutQuery(uri))
                .setAttribute(SERVER, uri.getHost());
        SpanContext current = Span.current().getSpanContext();
        if (current.isValid() && !current.equals(Span.fromContext(parent).getSpanContext())) {
            builder.addLink(current);
        }
        return builder.startSpan();
    }

    private static HttpRequest carrying(HttpRequest request, Span span) {
        HttpRequest.Builder copy = HttpRequest.newBuilder(request, (name, value) -> true);
        W3CTraceContextPropagator.getInstance().inject(Context.root().with(span), copy, HEADERS);
        return copy.build();
    }

    private static void answered(Span span, int status) {
        span.setAttribute(STATUS, (long) status);
        if (status >= 500) {
            span.setStatus(StatusCode.ERROR);
            span.setAttribute(ERROR, Integer.toString(status));
        }
    }

    private static void failed(Span span, Throwable failure) {
        span.setStatus(StatusCode.ERROR);
        span.setAttribute(ERROR, failure.getClass().getName());
    }

    static String withoutQuery(URI uri) {
        StringBuilder url = new StringBuilder().append(uri.getScheme()).append("://").append(uri.getHost());
        if (uri.getPort() != -1) {
            url.append(':').append(uri.getPort());
        }
        return url.append(uri.getRawPath() == null ? "" : uri.getRawPath()).toString();
    }
}
