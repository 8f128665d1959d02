package dev.onceguard.outbox;

import dev.onceguard.platform.LogContext;
import dev.onceguard.platform.Jobs;
import dev.onceguard.platform.Draining;
import dev.onceguard.platform.Timestamps;
import dev.onceguard.platform.TraceContexts;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.context.Scope;
import io.quarkus.arc.All;
import io.quarkus.narayana.jta.QuarkusTransaction;
import io.quarkus.scheduler.Scheduled;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Event;
import org.jboss.logging.Logger;
import org.jboss.logging.MDC;

import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * Delivers outbox events to their handlers, at least once, safely from any number of replicas.
 *
 * <ol>
 *   <li><b>claim</b>, one short transaction: due PENDING events are taken with {@code FOR UPDATE SKIP LOCKED}, their
 *       attempt counted, their next attempt pushed out by the claim lease and a fresh claim token written. Two relays
 *       never take the same event; a relay that dies leaves its events to be claimed again after the lease.</li>
 *   <li><b>effects</b>: every handler of the event runs in a transaction of its own, even when another one failed,
 *       so independent effects do not wait for each other. An effect may commit and the relay die right after:
 *       handlers are idempotent by business key, so running them again is safe.</li>
 *   <li><b>finish</b>, one transaction, conditional on the claim token: DONE when every handler succeeded (with the
 *       {@link EventDelivered} observers, which move the aggregate on); otherwise the error, a next attempt after an
 *       exponential backoff, and DEAD once the attempts are used up.</li>
 * </ol>
 * Each effect runs in a span of the trace of the change that wrote the event (its stored {@code traceparent}), linked
 * to the relay's run.
 */
@ApplicationScoped
public class OutboxRelay {

    private static final Logger LOG = Logger.getLogger(OutboxRelay.class);
    private static final int MAX_ERROR_LENGTH = 1000;

    /** What one run did; {@code claimed} exceeds the sum of the others by the claims lost to a lease expiry. */
    public record Result(int claimed, int done, int retried, int dead) {

        public Map<String, Long> counts() {
            return Map.of("claimed", (long) claimed, "done", (long) done, "retried", (long) retried, "dead", (long) dead);
        }
    }

    private enum Outcome { DONE, RETRIED, DEAD, CLAIM_LOST }

    private final OutboxRows rows;
    private final OutboxConfig config;
    private final OutboxMetrics metrics;
    private final Event<EventDelivered> delivered;
    private final Jobs jobs;
    private final Draining draining;
    private final TraceContexts traces;
    private final Map<String, List<OutboxHandler>> handlersByType = new HashMap<>();

    OutboxRelay(OutboxRows rows, OutboxConfig config, OutboxMetrics metrics, Event<EventDelivered> delivered,
                @All List<OutboxHandler> handlers, Jobs jobs, Draining draining, TraceContexts traces) {
        this.rows = rows;
        this.traces = traces;
        this.jobs = jobs;
        this.draining = draining;
        this.config = config;
        this.metrics = metrics;
        this.delivered = delivered;
        handlers.stream().sorted(Comparator.comparing(OutboxHandler::effect)).forEach(handler ->
                handler.eventTypes().forEach(type ->
                        handlersByType.computeIfAbsent(type, t -> new ArrayList<>()).add(handler)));
    }

    @Scheduled(identity = Jobs.OUTBOX_RELAY, every = "${onceguard.jobs.outbox-relay.every}",
            concurrentExecution = Scheduled.ConcurrentExecution.SKIP)
    void scheduled() {
        jobs.run(Jobs.OUTBOX_RELAY, false, () -> runOnce().counts());
    }

    /** One run on an operator's request (the console's "run now"), recorded like a scheduled run. */
    public Jobs.Finished runNow() {
        return jobs.runNow(Jobs.OUTBOX_RELAY, () -> runOnce().counts());
    }

    /**
     * Claims one batch of due events and delivers each; safe to call concurrently, from any replica. While the replica
     * shuts down it claims nothing, and the events of its batch it has not started are released, due at once.
     */
    public Result runOnce() {
        if (draining.inProgress()) {
            return new Result(0, 0, 0, 0);
        }
        UUID token = UUID.randomUUID();
        Instant now = Timestamps.now();
        List<OutboxRows.Claimed> claimed = QuarkusTransaction.requiringNew().call(() ->
                rows.claim(config.batchSize(), now, now.plus(config.claimLease()), token));
        if (claimed.isEmpty()) {
            metrics.idleRun();
            return new Result(0, 0, 0, 0);
        }
        int done = 0;
        int retried = 0;
        int dead = 0;
        for (int i = 0; i < claimed.size(); i++) {
            if (draining.inProgress()) {
                List<Long> unstarted = claimed.subList(i, claimed.size()).stream().map(c -> c.event().id()).toList();
                int released = QuarkusTransaction.requiringNew().call(() -> rows.release(unstarted, token, Timestamps.now()));
                LOG.infof("shutting down: released %d claimed outbox event(s) to the other replicas", released);
                break;
            }
            OutboxEvent event = claimed.get(i).event();
            Outcome outcome;
            LogContext.put(LogContext.OUTBOX_EVENT_ID, event.id());
            try {
                outcome = deliver(event, claimed.get(i).traceparent(), token);
            } finally {
                MDC.remove(LogContext.OUTBOX_EVENT_ID);
            }
            switch (outcome) {
                case DONE -> done++;
                case RETRIED -> retried++;
                case DEAD -> dead++;
                case CLAIM_LOST -> LOG.warnf("outbox event %d: claim lease ran out before it finished; "
                        + "another run owns it now", event.id());
            }
        }
        return new Result(claimed.size(), done, retried, dead);
    }

    /**
     * Admin action: a DEAD event becomes PENDING and due now, with its attempts reset.
     *
     * @return false when the event is not DEAD (unknown, already revived, pending or done)
     */
    public boolean retryNow(long eventId) {
        boolean revived = QuarkusTransaction.requiringNew().call(() -> rows.revive(eventId, Timestamps.now()));
        if (revived) {
            LOG.infof("outbox event %d: dead event queued again", eventId);
        }
        return revived;
    }

    private Outcome deliver(OutboxEvent event, String traceparent, UUID token) {
        if (event.attempts() > config.maxAttempts()) {
            return fail(event, token, "no attempts left: attempt " + (event.attempts() - 1)
                    + " did not finish within its claim lease");
        }
        List<String> failures = new ArrayList<>();
        for (OutboxHandler handler : handlersByType.getOrDefault(event.eventType(), List.of())) {
            Span span = traces.startContinuing("outbox effect " + handler.effect(), traceparent);
            span.setAttribute("onceguard.outbox.event_id", event.id());
            span.setAttribute("onceguard.outbox.event_type", event.eventType());
            try (Scope ignored = span.makeCurrent()) {
                OutboxHandler.Result result = QuarkusTransaction.requiringNew().call(() -> handler.handle(event));
                metrics.effect(handler.effect(), result);
            } catch (RuntimeException e) {
                span.setStatus(StatusCode.ERROR, describe(e));
                failures.add(handler.effect() + ": " + describe(e));
                LOG.warnf("outbox event %d (%s %s/%s) attempt %d: effect %s failed: %s", event.id(), event.eventType(),
                        event.aggregateType(), event.aggregateId(), event.attempts(), handler.effect(), describe(e));
                LOG.debugf(e, "outbox event %d: effect %s failed", event.id(), handler.effect());
            } finally {
                span.end();
            }
        }
        if (!failures.isEmpty()) {
            return fail(event, token, String.join("; ", failures));
        }
        try {
            boolean marked = QuarkusTransaction.requiringNew().call(() -> {
                if (!rows.markDone(event.id(), token, Timestamps.now())) {
                    return false;
                }
                delivered.fire(new EventDelivered(event));
                return true;
            });
            return marked ? Outcome.DONE : Outcome.CLAIM_LOST;
        } catch (RuntimeException e) {
            LOG.debugf(e, "outbox event %d: finishing failed", event.id());
            return fail(event, token, "finishing: " + describe(e));
        }
    }

    private Outcome fail(OutboxEvent event, UUID token, String error) {
        boolean dead = event.attempts() >= config.maxAttempts();
        Instant next = Timestamps.now().plus(config.backoffAfter(event.attempts()));
        String stored = error.length() > MAX_ERROR_LENGTH ? error.substring(0, MAX_ERROR_LENGTH) : error;
        boolean marked = QuarkusTransaction.requiringNew().call(() ->
                rows.markFailed(event.id(), token, stored, next, dead));
        if (!marked) {
            return Outcome.CLAIM_LOST;
        }
        if (dead) {
            LOG.errorf("outbox event %d (%s %s/%s) is DEAD after %d attempts: %s", event.id(), event.eventType(),
                    event.aggregateType(), event.aggregateId(), event.attempts(), stored);
            return Outcome.DEAD;
        }
        return Outcome.RETRIED;
    }

    /**
     * What may be stored and shown about a failure: the message of an {@link EffectFailure} (ids only by contract),
     * otherwise only the type of the root cause and the SQLState, since driver messages can quote row values.
     */
    static String describe(Throwable failure) {
        Throwable root = failure;
        String sqlState = null;
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof EffectFailure) {
                return t.getMessage();
            }
            if (t instanceof SQLException sql && sql.getSQLState() != null) {
                sqlState = sql.getSQLState();
            }
            root = t;
        }
        return root.getClass().getSimpleName() + (sqlState == null ? "" : " (SQLState " + sqlState + ")");
    }
}
