package dev.onceguard;

import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

/** The test profile's span exporter: every finished span stays in memory for the tests to read. */
@ApplicationScoped
public class InMemorySpans {

    @Produces
    @Singleton
    InMemorySpanExporter exporter() {
        return InMemorySpanExporter.create();
    }
}
