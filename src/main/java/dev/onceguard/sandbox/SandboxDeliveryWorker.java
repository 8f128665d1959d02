package dev.onceguard.sandbox;

import dev.onceguard.platform.Draining;
import dev.onceguard.platform.SqlRows;
import dev.onceguard.platform.TraceContexts;
import io.quarkus.narayana.jta.QuarkusTransaction;
import io.quarkus.scheduler.Scheduled;
import jakarta.enterprise.context.ApplicationScoped;
import org.jboss.logging.Logger;

import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Delivers the sandbox's webhooks from its outbox, at least once. Each step claims the next due event's deliveries
 * with {@code FOR UPDATE SKIP LOCKED} and a lease (so replicas never send the same claim twice and a crashed sender's
 * rows come back), commits, sends its copies concurrently outside any transaction, then records each result: delivered,
 * due again after an exponential backoff, or DEAD after the configured number of attempts. Events go out one after
 * the other in due order, so a stale event scheduled later is also sent later. Each run is a trace of its own; each
 * copy goes out in the trace of the payment that caused it (the context stored with the copy), linked to the run.
 */
@ApplicationScoped
public class SandboxDeliveryWorker {

    public record Run(int events, int delivered, int retrying, int dead) {
        Run plus(Run other) {
            return new Run(events + other.events, delivered + other.delivered, retrying + other.retrying,
                    dead + other.dead);
        }
    }

    record Claimed(long id, String eventId, SandboxEventType type, String paymentId, String body, int attempts,
                   String traceparent) {
    }

    static final Duration MAX_BACKOFF = Duration.ofHours(1);
    private static final Logger LOG = Logger.getLogger(SandboxDeliveryWorker.class);

    static final String JOB = "sandbox-webhook-delivery";

    private final SqlRows sql;
    private final SandboxWebhookSender sender;
    private final SandboxConfig config;
    private final Draining draining;
    private final TraceContexts traces;

    public SandboxDeliveryWorker(SqlRows sql, SandboxWebhookSender sender, SandboxConfig config, Draining draining,
                                 TraceContexts traces) {
        this.sql = sql;
        this.traces = traces;
        this.draining = draining;
        this.sender = sender;
        this.config = config;
    }

    @Scheduled(identity = JOB, every = "${onceguard.sandbox.delivery-every}",
            concurrentExecution = Scheduled.ConcurrentExecution.SKIP)
    void scheduled() {
        if (!config.enabled()) {
            return;
        }
        Run run = traces.jobRun(JOB, () -> deliverDue(config.webhookUrl(), Clock.systemUTC()));
        if (run.events() > 0) {
            LOG.debugf("sandbox webhook delivery: %s", run);
        }
    }

    /**
     * Sends up to {@code onceguard.sandbox.delivery-batch} due events to {@code target}, as of {@code clock}; while the
     * replica shuts down it claims no further event.
     */
    public Run deliverDue(URI target, Clock clock) {
        Run total = new Run(0, 0, 0, 0);
        for (int i = 0; i < config.deliveryBatch() && !draining.inProgress(); i++) {
            List<Claimed> copies = claimNextEvent(now(clock));
            if (copies.isEmpty()) {
                break;
            }
            Instant sentAt = now(clock);
            List<CompletableFuture<SandboxWebhookSender.Attempt>> attempts = copies.stream()
                    .map(c -> sender.send(target, c.eventId(), c.body(), sentAt, c.traceparent())).toList();
            CompletableFuture.allOf(attempts.toArray(CompletableFuture[]::new)).join();
            total = total.plus(record(copies, attempts.stream().map(CompletableFuture::join).toList(), now(clock)));
        }
        return total;
    }

    /**
     * Claims the due copies of the next due event. A copy another replica holds is skipped, never waited for: two
     * replicas that each locked one copy of the same event and waited for the other's deadlocked.
     */
    private List<Claimed> claimNextEvent(Instant now) {
        return QuarkusTransaction.requiringNew().call(() -> {
            List<Claimed> claimed = sql.list("""
                            WITH next_event AS (
                                SELECT event_id FROM sandbox_webhook_deliveries
                                 WHERE status = 'PENDING' AND next_attempt_at <= ?::timestamptz
                                 ORDER BY next_attempt_at, id
                                 LIMIT 1
                                 FOR UPDATE SKIP LOCKED),
                            due_copies AS (
                                SELECT c.id FROM sandbox_webhook_deliveries c JOIN next_event USING (event_id)
                                 WHERE c.status = 'PENDING' AND c.next_attempt_at <= ?::timestamptz
                                 FOR UPDATE OF c SKIP LOCKED)
                            UPDATE sandbox_webhook_deliveries d
                               SET attempts = d.attempts + 1, next_attempt_at = ?::timestamptz
                              FROM due_copies
                             WHERE d.id = due_copies.id
                            RETURNING d.id, d.event_id, d.event_type, d.payment_id, d.body, d.attempts, d.traceparent""",
                    row -> new Claimed(row.getLong("id"), row.getString("event_id"),
                            SandboxEventType.of(row.getString("event_type")), row.getString("payment_id"),
                            row.getString("body"), row.getInt("attempts"), row.getString("traceparent")),
                    now, now, now.plus(config.deliveryTimeout().multipliedBy(2)));
            if (!claimed.isEmpty()) {
                settlePayment(claimed.get(0), now);
            }
            return claimed;
        });
    }

    /** The provider's payment reaches the final state its event announces when that event falls due. */
    private void settlePayment(Claimed event, Instant now) {
        if (event.type().settles != null) {
            sql.update("UPDATE sandbox_payments SET status = ?, updated_at = ?::timestamptz"
                    + " WHERE id = ? AND status = 'PENDING'", event.type().settles.name(), now, event.paymentId());
        }
    }

    private Run record(List<Claimed> copies, List<SandboxWebhookSender.Attempt> attempts, Instant now) {
        return QuarkusTransaction.requiringNew().call(() -> {
            int delivered = 0;
            int retrying = 0;
            int dead = 0;
            for (int i = 0; i < copies.size(); i++) {
                Claimed copy = copies.get(i);
                SandboxWebhookSender.Attempt attempt = attempts.get(i);
                if (attempt.delivered()) {
                    delivered += finish(copy, "DELIVERED", now, null);
                } else if (copy.attempts() >= config.deliveryMaxAttempts()) {
                    dead += finish(copy, "DEAD", null, attempt.error());
                    LOG.warnf("sandbox webhook %s (event %s, payment %s) given up after %d attempts: %s", copy.id(),
                            copy.eventId(), copy.paymentId(), copy.attempts(), attempt.error());
                } else {
                    retrying += retryLater(copy, now.plus(backoff(copy.attempts())), attempt.error());
                }
            }
            return new Run(1, delivered, retrying, dead);
        });
    }

    // Results apply only to the claim they belong to (same attempt count): a claim whose lease ran out and was
    // taken again by another run is left to that run.

    private int finish(Claimed copy, String status, Instant deliveredAt, String error) {
        return sql.update("""
                UPDATE sandbox_webhook_deliveries SET status = ?, delivered_at = ?::timestamptz, last_error = ?::text
                 WHERE id = ? AND attempts = ? AND status = 'PENDING'""",
                status, deliveredAt, error, copy.id(), copy.attempts());
    }

    private int retryLater(Claimed copy, Instant nextAttemptAt, String error) {
        return sql.update("""
                UPDATE sandbox_webhook_deliveries SET next_attempt_at = ?::timestamptz, last_error = ?::text
                 WHERE id = ? AND attempts = ? AND status = 'PENDING'""",
                nextAttemptAt, error, copy.id(), copy.attempts());
    }

    /** {@code delivery-backoff × 2^(attempts − 1)}, at most {@link #MAX_BACKOFF}. */
    Duration backoff(int attempts) {
        Duration delay = config.deliveryBackoff().multipliedBy(1L << Math.min(attempts - 1, 20));
        return delay.compareTo(MAX_BACKOFF) > 0 ? MAX_BACKOFF : delay;
    }

    private static Instant now(Clock clock) {
        return clock.instant().truncatedTo(ChronoUnit.MILLIS);
    }
}
