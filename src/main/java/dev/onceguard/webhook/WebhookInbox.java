package dev.onceguard.webhook;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.onceguard.platform.LogContext;
import dev.onceguard.payment.Payment;
import dev.onceguard.payment.PaymentOutcomes;
import dev.onceguard.payment.PaymentProviders;
import dev.onceguard.payment.PaymentRows;
import dev.onceguard.payment.PaymentService;
import dev.onceguard.payment.ProviderPaymentIdLearned;
import dev.onceguard.payment.provider.PaymentProvider;
import dev.onceguard.payment.provider.ProviderEvent;
import dev.onceguard.payment.provider.WebhookRejected;
import dev.onceguard.payment.refund.RefundEvents;
import dev.onceguard.platform.Cause;
import dev.onceguard.platform.SqlRows;
import dev.onceguard.platform.Timestamps;
import io.quarkus.narayana.jta.QuarkusTransaction;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.logging.Logger;
import org.postgresql.util.PSQLException;

import java.io.IOException;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * The webhook inbox: records each authentic event once per (provider, event id), counting deliveries, and applies
 * it to the payment state machine in the same transaction. Concurrent deliveries of one event serialize on its
 * row, so exactly one applies it and the others see it done. An event whose application threw is kept as FAILED
 * (in a transaction of its own, after the rollback) and applied again by its next delivery (whose payload replaces the
 * stored one: a YooKassa notification kept with a failed read-back is then kept with the read-back that applied it) or
 * by {@link #reprocess}.
 * <p>
 * An event is matched to its payment by the provider payment id, or, while the payment does not know that id yet,
 * by the provider-side idempotency key or the {@code payment_id} metadata onceguard sent. It moves the payment only
 * when its amount and currency are the payment's (else REJECTED, kept with the reason). An event that matches no
 * payment yet is kept as PENDING_MATCH and applied as soon as a payment learns that provider payment id.
 */
@ApplicationScoped
public class WebhookInbox {

    private static final Logger LOG = Logger.getLogger(WebhookInbox.class);
    private static final int MAX_ERROR_LENGTH = 500;

    private record Decision(DeliveryOutcome outcome, String reason, String paymentId) {
    }

    private static final String[] REPROCESSABLE = {"FAILED", "IGNORED", "PENDING_MATCH"};

    private record Claimed(long id, String provider, String payload) {
    }

    /**
     * What a delivery that reached the database came to, the event's inbox status after it, whether the event was
     * there before, and when the delivery took the event's row: as it inserted it (or sent the statement that did), or
     * once it locked it after the delivery before it committed. That instant orders an event's deliveries as the
     * database decided them.
     */
    private record Received(DeliveryOutcome outcome, String status, boolean redelivered, Instant decidedAt) {
    }

    private final SqlRows sql;
    private final KnownPaymentSettlement knownPayments;
    private final PaymentOutcomes outcomes;
    private final PaymentService payments;
    private final PaymentRows rows;
    private final PaymentProviders providers;
    private final WebhookMetrics metrics;
    private final Duration lockTimeout;
    private final ObjectMapper json;
    private final FinishedEvents finished;
    private final WebhookDeliveryLog deliveries;
    private final RefundEvents refundEvents;

    public WebhookInbox(SqlRows sql, KnownPaymentSettlement knownPayments, PaymentOutcomes outcomes,
                        PaymentService payments, PaymentRows rows, PaymentProviders providers, WebhookMetrics metrics,
                        @ConfigProperty(name = "onceguard.webhooks.lock-timeout", defaultValue = "2s") Duration lockTimeout,
                        ObjectMapper json, FinishedEvents finished, WebhookDeliveryLog deliveries,
                        RefundEvents refundEvents) {
        this.sql = sql;
        this.knownPayments = knownPayments;
        this.finished = finished;
        this.deliveries = deliveries;
        this.refundEvents = refundEvents;
        this.json = json;
        this.outcomes = outcomes;
        this.payments = payments;
        this.rows = rows;
        this.providers = providers;
        this.metrics = metrics;
        this.lockTimeout = lockTimeout;
    }

    /**
     * Records and applies one authentic delivery and logs it ({@link WebhookDeliveryLog});
     * {@link DeliveryOutcome#FAILED} when applying it threw. An event this replica has seen settled
     * ({@link FinishedEvents}) is a duplicate at once, without a statement; any other delivery asks the database,
     * whose unique (provider, event id) decides. The body is stored without its secrets (see {@link SecretFields}); its
     * signature was checked on the bytes as received.
     */
    public DeliveryOutcome receive(String provider, ProviderEvent event, byte[] body) {
        LogContext.put(LogContext.PROVIDER_EVENT_ID, event.eventId());
        if (finished.contains(provider, event.eventId())) {
            return answered(provider, event, DeliveryOutcome.DUPLICATE, true, Instant.now());
        }
        String payload = storable(body);
        Received received;
        try {
            received = settledInOneStatement(provider, event, payload).orElseGet(() ->
                    QuarkusTransaction.requiringNew().call(() -> recordAndApply(provider, event, payload)));
        } catch (RuntimeException e) {
            metrics.count(provider, DeliveryOutcome.FAILED);
            String error = describe(e);
            LOG.warnf("webhook %s event %s (%s) failed and was rolled back: %s", provider, event.eventId(), event.type(), error);
            try {
                QuarkusTransaction.requiringNew().run(() -> recordFailure(provider, event, payload, error));
            } catch (RuntimeException again) {
                e.addSuppressed(again);
                throw e;
            }
            deliveries.record(provider, event.eventId(), Instant.now(), DeliveryOutcome.FAILED, 500, false);
            return DeliveryOutcome.FAILED;
        }
        finished.rememberIfSettled(provider, event.eventId(), received.status());
        return answered(provider, event, received.outcome(), received.redelivered(), received.decidedAt());
    }

    /**
     * A delivery of an event this replica has seen settled, answered {@link DeliveryOutcome#DUPLICATE} from memory
     * without waiting for anything; empty when the database must answer, or when the delivery log writes each
     * delivery as it comes (the test profile), which waits for the database.
     */
    public Optional<DeliveryOutcome> duplicateFromMemory(String provider, ProviderEvent event) {
        if (!deliveries.batched() || !finished.contains(provider, event.eventId())) {
            return Optional.empty();
        }
        LogContext.put(LogContext.PROVIDER_EVENT_ID, event.eventId());
        return Optional.of(answered(provider, event, DeliveryOutcome.DUPLICATE, true, Instant.now()));
    }

    private DeliveryOutcome answered(String provider, ProviderEvent event, DeliveryOutcome outcome, boolean redelivered,
                                     Instant decidedAt) {
        metrics.count(provider, outcome);
        deliveries.record(provider, event.eventId(), decidedAt, outcome, 200, redelivered);
        LOG.debugf("webhook %s event %s (%s) accepted: %s", provider, event.eventId(), event.type(), outcome.label());
        return outcome;
    }

    /**
     * Keeps a notification the provider's API did not confirm (see {@link PaymentProvider#readBack}) as FAILED with the
     * reason, applying nothing: the provider's next delivery of it, or an operator's reprocess, applies it again.
     */
    public void keepUnconfirmed(String provider, ProviderEvent hint, byte[] kept, String reason) {
        String payload = storable(kept);
        String error = truncate(new StringBuilder(reason));
        QuarkusTransaction.requiringNew().run(() -> recordFailure(provider, hint, payload, error));
        metrics.count(provider, DeliveryOutcome.FAILED);
        deliveries.record(provider, hint.eventId(), Instant.now(), DeliveryOutcome.FAILED, 500, false);
        LOG.warnf("webhook %s event %s kept unconfirmed: %s", provider, hint.eventId(), reason);
    }

    /**
     * The body as received, or, when it carries a secret, re-serialized with every secret replaced. A body in which
     * no secret-looking name can occur (none of the words, no escaped character that could spell one) is stored as
     * received without being read again.
     */
    private String storable(byte[] body) {
        String text = new String(body, StandardCharsets.UTF_8);
        if (!SecretFields.mayNameOne(text)) {
            return text;
        }
        JsonNode tree;
        try {
            tree = json.reader().with(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS).readTree(body);
        } catch (IOException e) {
            throw new IllegalArgumentException("an authentic webhook body that was read as JSON no longer is", e);
        }
        if (!SecretFields.hide(tree)) {
            return text;
        }
        try {
            return json.writeValueAsString(tree);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a JSON tree could not be written", e);
        }
    }

    /**
     * Applies a FAILED, IGNORED or PENDING_MATCH event again from its stored payload (the admin action). A
     * conditional UPDATE claims the row, so of two admins reprocessing at once, one does it and the other finds
     * nothing to do.
     *
     * @param cause the admin action, named on the state changes the event makes
     * @return the new outcome, or empty when the event is not (or no longer) in a state that can be reprocessed
     */
    public Optional<DeliveryOutcome> reprocess(long inboxId, Cause cause) {
        try {
            return QuarkusTransaction.requiringNew().call(() -> claimForReprocessing(inboxId).map(c -> reapply(c, cause)));
        } catch (RuntimeException e) {
            String error = describe(e);
            LOG.warnf("reprocessing webhook inbox event %d failed again: %s", inboxId, error);
            QuarkusTransaction.requiringNew().run(() -> sql.update(
                    "UPDATE webhook_inbox SET last_error = ? WHERE id = ? AND status = 'FAILED'", error, inboxId));
            return Optional.of(DeliveryOutcome.FAILED);
        }
    }

    /**
     * A new event for a payment that knows its provider payment id, recorded and applied by one statement that is
     * atomic on its own, without a transaction around it ({@link KnownPaymentSettlement}); empty, nothing written, for
     * any other delivery. When the statement found the payment's idempotency record still open, the record is then
     * finished through the engine in a transaction of its own: a crash in between leaves the record open, as a
     * webhook that arrives while the record is held does, for its holder or lease recovery to finish.
     */
    private Optional<Received> settledInOneStatement(String provider, ProviderEvent event, String payload) {
        if (!KnownPaymentSettlement.applies(event)) {
            return Optional.empty();
        }
        return knownPayments.settle(provider, event, payload, lockTimeout, Timestamps.now()).map(settled -> {
            if (settled.outcome() == DeliveryOutcome.PROCESSED && settled.recordOpen()) {
                QuarkusTransaction.requiringNew().run(() ->
                        payments.finishSettled(settled.paymentId(), Cause.webhook(event.eventId())));
            }
            metrics.countEvent(provider, settled.outcome());
            return new Received(settled.outcome(), settled.outcome().name(), false, settled.decidedAt());
        });
    }

    /**
     * The inbox row first: inserted, the event is this delivery's to apply; already there, the row is locked and its
     * status says whether it is a duplicate (settled) or to be applied again (failed, parked, or received by a
     * delivery whose transaction rolled back). A concurrent first delivery of the same event makes the insert wait
     * until it commits. The same statement bounds every lock wait of the transaction (see {@link #limitLockWaits}).
     */
    private Received recordAndApply(String provider, ProviderEvent event, String payload) {
        Instant now = Timestamps.now();
        List<Long> inserted = sql.list("""
                        INSERT INTO webhook_inbox (provider, event_id, event_type, provider_payment_id, event_created_at,
                            payload, status, received_at, last_delivered_at)
                        SELECT ?, ?, ?, ?, CAST(? AS timestamptz), CAST(? AS jsonb), 'RECEIVED', CAST(? AS timestamptz),
                               CAST(? AS timestamptz)
                          FROM (SELECT set_config('lock_timeout', ?, true)) AS lock_waits
                        ON CONFLICT (provider, event_id) DO NOTHING
                        RETURNING id""", row -> row.getLong(1),
                provider, event.eventId(), event.type(), event.providerPaymentId(), event.created(), payload, now, now,
                lockTimeout.toMillis() + "ms");
        boolean redelivered = inserted.isEmpty();
        Instant decidedAt;
        long id;
        if (redelivered) {
            record Held(long id, String status) {
            }
            Held held = sql.list("SELECT id, status FROM webhook_inbox WHERE provider = ? AND event_id = ? FOR UPDATE",
                    row -> new Held(row.getLong(1), row.getString(2)), provider, event.eventId()).get(0);
            decidedAt = Instant.now();
            id = held.id();
            String status = held.status();
            if (status.equals("PROCESSED") || status.equals("IGNORED") || status.equals("REJECTED")) {
                return new Received(DeliveryOutcome.DUPLICATE, status, true, decidedAt);
            }
            if (status.equals("FAILED")) {
                // A notification kept unconfirmed is stored as its own hint; the delivery that applies it keeps its body.
                sql.update("UPDATE webhook_inbox SET payload = CAST(? AS jsonb) WHERE id = ?", payload, id);
            }
        } else {
            decidedAt = Instant.now();
            id = inserted.get(0);
        }
        Decision decision = applyAndFinish(id, provider, event, Cause.webhook(event.eventId()));
        return new Received(decision.outcome(), decision.outcome().name(), redelivered, decidedAt);
    }

    private void recordFailure(String provider, ProviderEvent event, String payload, String error) {
        Instant now = Timestamps.now();
        sql.update("""
                        INSERT INTO webhook_inbox (provider, event_id, event_type, provider_payment_id, event_created_at,
                            payload, status, last_error, received_at, last_delivered_at)
                        VALUES (?, ?, ?, ?, CAST(? AS timestamptz), CAST(? AS jsonb), 'FAILED', ?, CAST(? AS timestamptz),
                            CAST(? AS timestamptz))
                        ON CONFLICT (provider, event_id) DO UPDATE
                            SET delivery_count = webhook_inbox.delivery_count + 1,
                                last_delivered_at = EXCLUDED.last_delivered_at,
                                status = CASE WHEN webhook_inbox.status IN ('PROCESSED', 'IGNORED', 'REJECTED')
                                              THEN webhook_inbox.status ELSE 'FAILED' END,
                                last_error = CASE WHEN webhook_inbox.status IN ('PROCESSED', 'IGNORED', 'REJECTED')
                                                  THEN webhook_inbox.last_error ELSE EXCLUDED.last_error END""",
                provider, event.eventId(), event.type(), event.providerPaymentId(), event.created(), payload, error, now,
                now);
    }

    private Optional<Claimed> claimForReprocessing(long inboxId) {
        return sql.list("UPDATE webhook_inbox SET status = 'RECEIVED' WHERE id = ? AND status = ANY (?)"
                                + " RETURNING provider, CAST(payload AS text)",
                        row -> new Claimed(inboxId, row.getString(1), row.getString(2)), inboxId, REPROCESSABLE)
                .stream().findFirst();
    }

    private DeliveryOutcome reapply(Claimed claimed, Cause cause) {
        ProviderEvent event = storedEvent(claimed);
        limitLockWaits();
        Decision decision = applyAndFinish(claimed.id(), claimed.provider(), event, cause);
        LOG.infof("webhook inbox event %d (%s %s) reprocessed: %s", claimed.id(), claimed.provider(), event.eventId(),
                decision.outcome().label());
        return decision.outcome();
    }

    private ProviderEvent storedEvent(Claimed claimed) {
        PaymentProvider adapter = providers.named(claimed.provider())
                .orElseThrow(() -> new IllegalStateException("provider " + claimed.provider() + " is not enabled"));
        try {
            return adapter.parseEvent(json.readTree(claimed.payload()));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("the stored payload is not JSON", e);
        } catch (WebhookRejected e) {
            throw new IllegalStateException("the stored payload no longer parses: " + e.getMessage());
        }
    }

    /**
     * Applies the events parked for a provider payment id, in the order the provider created them, inside the
     * transaction in which a payment has just stored that id. Each is applied as its own webhook would have been.
     */
    void applyParked(@Observes ProviderPaymentIdLearned learned) {
        List<Claimed> parked = sql.list("""
                        SELECT id, provider, CAST(payload AS text) FROM webhook_inbox
                         WHERE provider = ? AND provider_payment_id = ? AND status = 'PENDING_MATCH'
                         ORDER BY event_created_at, id
                           FOR UPDATE""", row -> new Claimed(row.getLong(1), row.getString(2), row.getString(3)),
                learned.provider(), learned.providerPaymentId());
        if (!parked.isEmpty()) {
            limitLockWaits();
        }
        for (Claimed claimed : parked) {
            ProviderEvent event = storedEvent(claimed);
            Decision decision = applyAndFinish(claimed.id(), claimed.provider(), event, Cause.webhook(event.eventId()));
            LOG.infof("parked webhook event %s (%s) applied to payment %s: %s", event.eventId(), event.type(),
                    learned.paymentId(), decision.outcome().label());
        }
    }

    /**
     * A webhook must answer quickly: waiting long on a row that another transaction holds is a failure the provider's
     * next delivery retries, not a reason to keep the request open. A delivery sets this in its first statement.
     */
    private void limitLockWaits() {
        sql.list("SELECT set_config('lock_timeout', ?, true)", row -> row.getString(1), lockTimeout.toMillis() + "ms");
    }

    /** The state machine step of one event, inside the inbox row's transaction, lock waits limited. */
    private Decision apply(String provider, ProviderEvent event, Cause cause) {
        if (event.refund() != null) {
            return applyRefund(provider, event, cause);
        }
        if (event.status() == null) {
            return new Decision(DeliveryOutcome.IGNORED, "event type not handled", null);
        }
        Optional<Payment> match = match(provider, event);
        if (match.isEmpty()) {
            return new Decision(DeliveryOutcome.PENDING_MATCH, "no payment with provider payment id "
                    + event.providerPaymentId() + " yet; applied as soon as one learns it", null);
        }
        Payment payment = match.get();
        Optional<String> mismatch = mismatch(payment, event);
        if (mismatch.isPresent()) {
            LOG.warnf("webhook %s event %s rejected for payment %s: %s", provider, event.eventId(), payment.paymentId(),
                    mismatch.get());
            return new Decision(DeliveryOutcome.REJECTED, mismatch.get(), payment.paymentId());
        }
        if (outcomes.apply(payment, event.providerPaymentId(), event.status(), cause)) {
            payments.finishSettled(payment.paymentId(), cause);
            return new Decision(DeliveryOutcome.PROCESSED, null, payment.paymentId());
        }
        Payment.Status current = rows.get(payment.paymentId()).status();
        return new Decision(DeliveryOutcome.IGNORED, "stale or repeated (payment is " + current + ")", payment.paymentId());
    }

    /** A refund event, applied by the refunds' own rules ({@link RefundEvents}). */
    private Decision applyRefund(String provider, ProviderEvent event, Cause cause) {
        RefundEvents.Applied applied = refundEvents.apply(provider, event, cause);
        DeliveryOutcome outcome = switch (applied.outcome()) {
            case APPLIED -> DeliveryOutcome.PROCESSED;
            case STALE, UNMATCHED -> DeliveryOutcome.IGNORED;
            case MISMATCH -> DeliveryOutcome.REJECTED;
        };
        return new Decision(outcome, applied.reason(), applied.paymentId());
    }

    /**
     * The payment the event is about: by provider payment id; else, for a payment that does not know its provider
     * payment id yet, by what onceguard itself sent (the provider-side key, then the {@code payment_id} metadata,
     * whose {@code order_id} must agree).
     */
    private Optional<Payment> match(String provider, ProviderEvent event) {
        return Optional.ofNullable(event.providerPaymentId()).flatMap(id -> rows.findByProviderPayment(provider, id))
                .or(() -> Optional.ofNullable(event.providerIdempotencyKey())
                        .flatMap(key -> rows.findByProviderKey(provider, key)))
                .or(() -> Optional.ofNullable(event.paymentId()).flatMap(rows::find)
                        .filter(p -> p.provider().equals(provider))
                        .filter(p -> event.orderId() == null || event.orderId().equals(p.orderId())));
    }

    /** Why the event cannot be about this payment, if it cannot. */
    private static Optional<String> mismatch(Payment payment, ProviderEvent event) {
        if (event.amount() == null || event.currency() == null) {
            return Optional.of("the event carries no amount or currency; payment " + payment.paymentId() + " is "
                    + money(payment.amount(), payment.currency()));
        }
        if (event.amount().compareTo(payment.amount()) != 0 || !event.currency().equals(payment.currency())) {
            return Optional.of("amount mismatch: the event says " + money(event.amount(), event.currency())
                    + ", payment " + payment.paymentId() + " is " + money(payment.amount(), payment.currency()));
        }
        if (payment.providerPaymentId() != null && event.providerPaymentId() != null
                && !payment.providerPaymentId().equals(event.providerPaymentId())) {
            return Optional.of("the event is about provider payment " + event.providerPaymentId() + ", payment "
                    + payment.paymentId() + " is " + payment.providerPaymentId());
        }
        return Optional.empty();
    }

    private static String money(BigDecimal amount, String currency) {
        return amount.setScale(Math.max(2, amount.scale()), RoundingMode.UNNECESSARY).toPlainString() + " " + currency;
    }

    /** Applies the event held in inbox row {@code id} and stores, and counts, what was decided. */
    private Decision applyAndFinish(long id, String provider, ProviderEvent event, Cause cause) {
        Decision decision = apply(provider, event, cause);
        boolean decided = decision.outcome() != DeliveryOutcome.PENDING_MATCH;
        sql.update("UPDATE webhook_inbox SET status = ?, reason = ?, last_error = NULL, payment_id = ?,"
                        + " processed_at = CAST(? AS timestamptz) WHERE id = ?",
                decision.outcome().name(), decision.reason(), decision.paymentId(), decided ? Timestamps.now() : null, id);
        metrics.countEvent(provider, decision.outcome());
        return decision;
    }

    /**
     * The failure as the console may show it: exception class and the database's primary message, never the
     * server's detail line, which can quote a whole row (payment tokens included).
     */
    static String describe(Throwable failure) {
        StringBuilder text = new StringBuilder(failure.getClass().getSimpleName());
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof PSQLException psql && psql.getServerErrorMessage() != null) {
                text.append(": ").append(psql.getServerErrorMessage().getSQLState()).append(' ')
                        .append(psql.getServerErrorMessage().getMessage());
                return truncate(text);
            }
            if (t instanceof SQLException sql) {
                text.append(": SQLState ").append(sql.getSQLState());
                return truncate(text);
            }
        }
        if (failure.getMessage() != null) {
            text.append(": ").append(failure.getMessage());
        }
        return truncate(text);
    }

    private static String truncate(StringBuilder text) {
        return text.length() <= MAX_ERROR_LENGTH ? text.toString() : text.substring(0, MAX_ERROR_LENGTH);
    }
}
