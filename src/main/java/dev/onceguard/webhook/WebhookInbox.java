package dev.onceguard.webhook;

import dev.onceguard.payment.Payment;
import dev.onceguard.payment.PaymentOutcomes;
import dev.onceguard.payment.PaymentProviders;
import dev.onceguard.payment.provider.PaymentProvider;
import dev.onceguard.payment.provider.ProviderEvent;
import dev.onceguard.payment.provider.WebhookRejected;
import dev.onceguard.platform.Timestamps;
import io.quarkus.narayana.jta.QuarkusTransaction;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.persistence.EntityManager;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.hibernate.query.NativeQuery;
import org.hibernate.type.StandardBasicTypes;
import org.jboss.logging.Logger;
import org.postgresql.util.PSQLException;

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
 * (in a transaction of its own, after the rollback) and applied again by its next delivery or by {@link #reprocess}.
 */
@ApplicationScoped
public class WebhookInbox {

    private static final Logger LOG = Logger.getLogger(WebhookInbox.class);
    private static final int MAX_ERROR_LENGTH = 500;

    private record Decision(DeliveryOutcome outcome, String reason) {
    }

    private record Claimed(long id, String provider, String payload) {
    }

    private final EntityManager em;
    private final PaymentOutcomes outcomes;
    private final PaymentProviders providers;
    private final WebhookMetrics metrics;
    private final Duration lockTimeout;

    public WebhookInbox(EntityManager em, PaymentOutcomes outcomes, PaymentProviders providers, WebhookMetrics metrics,
                        @ConfigProperty(name = "onceguard.webhooks.lock-timeout", defaultValue = "2s") Duration lockTimeout) {
        this.em = em;
        this.outcomes = outcomes;
        this.providers = providers;
        this.metrics = metrics;
        this.lockTimeout = lockTimeout;
    }

    /** Records and applies one authentic delivery; {@link DeliveryOutcome#FAILED} when applying it threw. */
    public DeliveryOutcome receive(String provider, ProviderEvent event, byte[] body) {
        String payload = new String(body, StandardCharsets.UTF_8);
        DeliveryOutcome outcome;
        try {
            outcome = QuarkusTransaction.requiringNew().call(() -> recordAndApply(provider, event, payload));
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
            return DeliveryOutcome.FAILED;
        }
        metrics.count(provider, outcome);
        return outcome;
    }

    /**
     * Applies a FAILED event again from its stored payload (the admin action). A conditional UPDATE claims the row,
     * so of two admins reprocessing at once, one does it and the other finds nothing to do.
     *
     * @return the new outcome, or empty when the event is not (or no longer) FAILED
     */
    public Optional<DeliveryOutcome> reprocess(long inboxId) {
        try {
            return QuarkusTransaction.requiringNew().call(() -> claimFailed(inboxId).map(this::reapply));
        } catch (RuntimeException e) {
            String error = describe(e);
            LOG.warnf("reprocessing webhook inbox event %d failed again: %s", inboxId, error);
            QuarkusTransaction.requiringNew().run(() -> em.createNativeQuery(
                            "UPDATE webhook_inbox SET last_error = :error WHERE id = :id AND status = 'FAILED'")
                    .setParameter("error", error)
                    .setParameter("id", inboxId)
                    .executeUpdate());
            return Optional.of(DeliveryOutcome.FAILED);
        }
    }

    private DeliveryOutcome recordAndApply(String provider, ProviderEvent event, String payload) {
        Instant now = Timestamps.now();
        Object[] row = (Object[]) em.createNativeQuery("""
                        INSERT INTO webhook_inbox (provider, event_id, event_type, provider_payment_id, event_created_at,
                            payload, status, received_at, last_delivered_at)
                        VALUES (:provider, :eventId, :type, :providerPaymentId, :created,
                            CAST(:payload AS jsonb), 'RECEIVED', :now, :now)
                        ON CONFLICT (provider, event_id) DO UPDATE
                            SET delivery_count = webhook_inbox.delivery_count + 1,
                                last_delivered_at = EXCLUDED.last_delivered_at
                        RETURNING id, status""")
                .unwrap(NativeQuery.class)
                .setParameter("provider", provider)
                .setParameter("eventId", event.eventId())
                .setParameter("type", event.type())
                .setParameter("providerPaymentId", event.providerPaymentId(), StandardBasicTypes.STRING)
                .setParameter("created", event.created(), StandardBasicTypes.INSTANT)
                .setParameter("payload", payload)
                .setParameter("now", now)
                .getSingleResult();
        long id = ((Number) row[0]).longValue();
        String status = (String) row[1];
        if (status.equals("PROCESSED") || status.equals("IGNORED")) {
            return DeliveryOutcome.DUPLICATE;
        }
        Decision decision = apply(provider, event, "webhook " + event.eventId());
        finish(id, decision);
        return decision.outcome();
    }

    private void recordFailure(String provider, ProviderEvent event, String payload, String error) {
        Instant now = Timestamps.now();
        em.createNativeQuery("""
                        INSERT INTO webhook_inbox (provider, event_id, event_type, provider_payment_id, event_created_at,
                            payload, status, last_error, received_at, last_delivered_at)
                        VALUES (:provider, :eventId, :type, :providerPaymentId, :created,
                            CAST(:payload AS jsonb), 'FAILED', :error, :now, :now)
                        ON CONFLICT (provider, event_id) DO UPDATE
                            SET delivery_count = webhook_inbox.delivery_count + 1,
                                last_delivered_at = EXCLUDED.last_delivered_at,
                                status = CASE WHEN webhook_inbox.status IN ('PROCESSED', 'IGNORED')
                                              THEN webhook_inbox.status ELSE 'FAILED' END,
                                last_error = CASE WHEN webhook_inbox.status IN ('PROCESSED', 'IGNORED')
                                                  THEN webhook_inbox.last_error ELSE EXCLUDED.last_error END""")
                .unwrap(NativeQuery.class)
                .setParameter("provider", provider)
                .setParameter("eventId", event.eventId())
                .setParameter("type", event.type())
                .setParameter("providerPaymentId", event.providerPaymentId(), StandardBasicTypes.STRING)
                .setParameter("created", event.created(), StandardBasicTypes.INSTANT)
                .setParameter("payload", payload)
                .setParameter("error", error)
                .setParameter("now", now)
                .executeUpdate();
    }

    private Optional<Claimed> claimFailed(long inboxId) {
        List<?> rows = em.createNativeQuery(
                        "UPDATE webhook_inbox SET status = 'RECEIVED' WHERE id = :id AND status = 'FAILED'"
                                + " RETURNING provider, CAST(payload AS text)")
                .setParameter("id", inboxId)
                .getResultList();
        return rows.stream().findFirst().map(r -> {
            Object[] row = (Object[]) r;
            return new Claimed(inboxId, (String) row[0], (String) row[1]);
        });
    }

    private DeliveryOutcome reapply(Claimed claimed) {
        PaymentProvider adapter = providers.named(claimed.provider())
                .orElseThrow(() -> new IllegalStateException("provider " + claimed.provider() + " is not enabled"));
        ProviderEvent event;
        try {
            event = adapter.parseEvent(claimed.payload().getBytes(StandardCharsets.UTF_8));
        } catch (WebhookRejected e) {
            throw new IllegalStateException("the stored payload no longer parses: " + e.getMessage());
        }
        Decision decision = apply(claimed.provider(), event, "webhook " + event.eventId() + " reprocessed");
        finish(claimed.id(), decision);
        LOG.infof("webhook inbox event %d (%s %s) reprocessed: %s", claimed.id(), claimed.provider(), event.eventId(),
                decision.outcome().label());
        return decision.outcome();
    }

    /** The state machine step of one event, inside the inbox row's transaction. */
    private Decision apply(String provider, ProviderEvent event, String cause) {
        if (event.status() == null) {
            return new Decision(DeliveryOutcome.IGNORED, "event type not handled");
        }
        // A webhook must answer quickly: waiting long on a row that another transaction holds is a failure the
        // provider's next delivery retries, not a reason to keep the request open.
        em.createNativeQuery("SELECT set_config('lock_timeout', :timeout, true)")
                .setParameter("timeout", lockTimeout.toMillis() + "ms")
                .getSingleResult();
        Optional<Payment> payment = event.providerPaymentId() == null ? Optional.empty()
                : Payment.findByProviderPayment(provider, event.providerPaymentId());
        if (payment.isEmpty()) {
            return new Decision(DeliveryOutcome.IGNORED, "unknown payment");
        }
        if (outcomes.apply(payment.get(), event.providerPaymentId(), event.status(), cause)) {
            return new Decision(DeliveryOutcome.PROCESSED, null);
        }
        Object current = em.createNativeQuery("SELECT status FROM payments WHERE payment_id = :id")
                .setParameter("id", payment.get().paymentId)
                .getSingleResult();
        return new Decision(DeliveryOutcome.IGNORED, "stale or repeated (payment is " + current + ")");
    }

    private void finish(long id, Decision decision) {
        em.createNativeQuery("UPDATE webhook_inbox SET status = :status, reason = :reason, last_error = NULL,"
                        + " processed_at = :now WHERE id = :id")
                .unwrap(NativeQuery.class)
                .setParameter("status", decision.outcome() == DeliveryOutcome.PROCESSED ? "PROCESSED" : "IGNORED")
                .setParameter("reason", decision.reason(), StandardBasicTypes.STRING)
                .setParameter("now", Timestamps.now())
                .setParameter("id", id)
                .executeUpdate();
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
