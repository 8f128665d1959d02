package dev.onceguard.platform;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.quarkus.runtime.ShutdownDelayInitiatedEvent;
import io.quarkus.scheduler.Scheduler;
import io.quarkus.vertx.http.runtime.filters.Filters;
import io.vertx.core.http.HttpHeaders;
import io.vertx.ext.web.RoutingContext;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Singleton;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.logging.Logger;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * The replica is shutting down. On SIGTERM Quarkus reports readiness DOWN and keeps serving for
 * {@code quarkus.shutdown.delay}, while load balancers stop sending; after it every new request is refused (503,
 * connection closed) and those in flight have up to {@code quarkus.shutdown.timeout} to finish. From the first moment
 * the scheduled jobs start no new run, and a run in progress asks {@link #inProgress()} before claiming more work, so
 * what it has not started is left to the other replicas.
 */
@Singleton
public class Draining {

    private static final Logger LOG = Logger.getLogger(Draining.class);

    private final Scheduler scheduler;
    private final Duration delay;
    private final ObjectMapper json;
    private volatile Instant refuseFrom;

    Draining(Scheduler scheduler, @ConfigProperty(name = "quarkus.shutdown.delay") Optional<Duration> delay,
             ObjectMapper json) {
        this.scheduler = scheduler;
        this.delay = delay.orElse(Duration.ZERO);
        this.json = json;
    }

    void onShutdown(@Observes ShutdownDelayInitiatedEvent shutdown) {
        refuseFrom = Instant.now().plus(delay);
        scheduler.pause();
        LOG.infof("shutting down: readiness is DOWN, scheduled jobs take no new work, new requests are refused in %d ms,"
                + " requests in flight finish", delay.toMillis());
    }

    public boolean inProgress() {
        return refuseFrom != null;
    }

    void register(@Observes Filters filters) {
        filters.register(this::refuseOnceTheDelayIsOver, 2000);
    }

    private void refuseOnceTheDelayIsOver(RoutingContext rc) {
        Instant from = refuseFrom;
        if (from == null || Instant.now().isBefore(from)) {
            rc.next();
            return;
        }
        try {
            rc.response().setStatusCode(503)
                    .putHeader(HttpHeaders.CONTENT_TYPE, Problem.MEDIA_TYPE)
                    .putHeader(HttpHeaders.RETRY_AFTER, "1")
                    .putHeader(HttpHeaders.CONNECTION, "close")
                    .end(json.writeValueAsString(Problem.of(503, "SHUTTING_DOWN", "Shutting down",
                            "This replica is shutting down; send the request again, another replica will take it.")));
        } catch (JsonProcessingException e) {
            rc.fail(e);
        }
    }
}
