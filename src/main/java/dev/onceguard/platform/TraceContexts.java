package dev.onceguard.platform;

import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import io.opentelemetry.context.propagation.TextMapGetter;
import jakarta.enterprise.context.ApplicationScoped;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * Traces across the service's queues: the {@code traceparent} of the change that queues work (stored with the queued
 * row), the context that continues it when the work is picked up, and the span of a scheduled job's run, a trace of
 * its own.
 */
@ApplicationScoped
public class TraceContexts {

    static final String TRACEPARENT = "traceparent";
    private static final W3CTraceContextPropagator W3C = W3CTraceContextPropagator.getInstance();
    private static final TextMapGetter<String> STORED = new TextMapGetter<>() {
        @Override
        public Iterable<String> keys(String traceparent) {
            return List.of(TRACEPARENT);
        }

        @Override
        public String get(String traceparent, String key) {
            return TRACEPARENT.equals(key) ? traceparent : null;
        }
    };

    private final Tracer tracer;

    public TraceContexts(OpenTelemetry openTelemetry) {
        this.tracer = openTelemetry.getTracer("dev.onceguard");
    }

    /** The W3C {@code traceparent} of the current span, to store with queued work; null outside any trace. */
    public static String currentTraceparent() {
        SpanContext current = Span.current().getSpanContext();
        if (!current.isValid()) {
            return null;
        }
        Map<String, String> headers = new HashMap<>();
        W3C.inject(Context.current(), headers, Map::put);
        return headers.get(TRACEPARENT);
    }

    /**
     * The context a stored {@code traceparent} names, as the parent of the work that continues it; the current one
     * when none was stored.
     */
    public static Context continuing(String traceparent) {
        return traceparent == null ? Context.current() : W3C.extract(Context.root(), traceparent, STORED);
    }

    /**
     * Starts the span of work that continues a stored trace: a child of that trace, linked to the current span (the job
     * run doing the work).
     */
    public Span startContinuing(String name, String traceparent) {
        SpanContext jobRun = Span.current().getSpanContext();
        var span = tracer.spanBuilder(name).setSpanKind(SpanKind.INTERNAL).setParent(continuing(traceparent));
        if (traceparent != null && jobRun.isValid()) {
            span.addLink(jobRun);
        }
        return span.startSpan();
    }

    /** Runs one run of a scheduled job in a span of its own, the root of a new trace. */
    public <T> T jobRun(String job, Supplier<T> run) {
        Span span = tracer.spanBuilder("job " + job).setNoParent().setSpanKind(SpanKind.INTERNAL)
                .setAttribute("onceguard.job", job).startSpan();
        try (Scope ignored = span.makeCurrent()) {
            return run.get();
        } catch (RuntimeException e) {
            span.setStatus(StatusCode.ERROR, e.getClass().getSimpleName());
            throw e;
        } finally {
            span.end();
        }
    }
}
