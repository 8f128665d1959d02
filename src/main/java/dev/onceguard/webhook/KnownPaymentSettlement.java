package dev.onceguard.webhook;

import dev.onceguard.checkout.Order;
import dev.onceguard.checkout.OrderSettlement;
import dev.onceguard.checkout.OrderStates;
import dev.onceguard.idempotency.IdempotencyService;
import dev.onceguard.payment.Payment;
import dev.onceguard.payment.PaymentOutcomes;
import dev.onceguard.payment.PaymentStates;
import dev.onceguard.payment.provider.ProviderEvent;
import dev.onceguard.platform.Cause;
import dev.onceguard.platform.SqlRows;
import dev.onceguard.platform.TraceContexts;
import jakarta.enterprise.context.ApplicationScoped;

import java.time.Duration;
import java.time.Instant;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * A new event about a payment that already knows its provider payment id, recorded and applied in one statement
 * (decision 0037): the payment is found and locked with the event's amount and currency as conditions, the inbox row
 * is inserted already decided (PROCESSED when the payment may move to what the event says, IGNORED when it may not),
 * and, when it is PROCESSED, the payment's move, its transition, the order's move to PAID, that transition and the
 * {@value OrderSettlement#ORDER_PAID} outbox row follow from the rows the statement returned to itself: the same
 * conditional moves and rows as {@link dev.onceguard.platform.StateMachine#move} and
 * {@link OrderSettlement#markPaid} write. The statement also reads whether the payment's idempotency record is still
 * open, so that the record is finished through the engine only when there is something to finish.
 * <p>
 * Any other event (no such payment yet, another amount or currency, an inbox row already there, a refund) writes
 * nothing here and is answered by {@link WebhookInbox}'s general path.
 */
@ApplicationScoped
class KnownPaymentSettlement {

    /** What the statement did: the inbox row's outcome, its payment, and whether that payment's record is open. */
    record Settled(DeliveryOutcome outcome, String paymentId, boolean recordOpen) {
    }

    private static final String STATEMENT = """
            WITH event AS (
                SELECT set_config('lock_timeout', ?, true) AS lock_timeout,
                       CAST(? AS text) AS provider, CAST(? AS text) AS event_id, CAST(? AS text) AS event_type,
                       CAST(? AS text) AS provider_payment_id, CAST(? AS timestamptz) AS created_at,
                       CAST(? AS numeric) AS amount, CAST(? AS text) AS currency, CAST(? AS text) AS target,
                       CAST(? AS text) AS cause, CAST(? AS text) AS cause_ref, CAST(? AS timestamptz) AS now),
            payment AS (
                SELECT p.payment_id, p.order_id, p.user_id, p.status, p.idempotency_record_id
                  FROM event e
                  JOIN payments p ON p.provider = e.provider AND p.provider_payment_id = e.provider_payment_id
                                 AND p.amount = e.amount AND p.currency = e.currency
                 WHERE NOT EXISTS (SELECT 1 FROM webhook_inbox i WHERE i.provider = e.provider AND i.event_id = e.event_id)
                 LIMIT 1
                   FOR UPDATE OF p),
            inbox AS (
                INSERT INTO webhook_inbox (provider, event_id, event_type, provider_payment_id, event_created_at,
                    payload, status, reason, payment_id, received_at, last_delivered_at, processed_at)
                SELECT e.provider, e.event_id, e.event_type, e.provider_payment_id, e.created_at, CAST(? AS jsonb),
                       CASE WHEN p.status IN (PAYMENT_SOURCES) THEN 'PROCESSED' ELSE 'IGNORED' END,
                       CASE WHEN p.status IN (PAYMENT_SOURCES) THEN NULL
                            ELSE 'stale or repeated (payment is ' || p.status || ')' END,
                       p.payment_id, e.now, e.now, e.now
                  FROM event e, payment p
                ON CONFLICT (provider, event_id) DO NOTHING
                RETURNING status),
            payment_moved AS (
                UPDATE payments t SET status = e.target, updated_at = e.now
                  FROM event e, payment p, inbox i
                 WHERE t.payment_id = p.payment_id AND i.status = 'PROCESSED'
                RETURNING t.payment_id, t.order_id, t.user_id, p.status AS from_status),
            payment_transition AS (
                INSERT INTO state_transitions (subject_type, subject_id, from_status, to_status, cause, cause_ref,
                    occurred_at)
                SELECT 'payment', m.payment_id, m.from_status, e.target, e.cause, e.cause_ref, e.now
                  FROM event e, payment_moved m),
            order_before AS (
                SELECT o.order_id, o.status
                  FROM event e, payment_moved m
                  JOIN orders o ON o.order_id = m.order_id
                 WHERE e.target = 'SUCCEEDED'
                   FOR UPDATE OF o),
            order_moved AS (
                UPDATE orders t SET status = 'PAID', updated_at = e.now
                  FROM event e, order_before b
                 WHERE t.order_id = b.order_id AND b.status IN (ORDER_SOURCES)
                RETURNING t.order_id, b.status AS from_status),
            order_transition AS (
                INSERT INTO state_transitions (subject_type, subject_id, from_status, to_status, cause, cause_ref,
                    occurred_at)
                SELECT 'order', o.order_id, o.from_status, 'PAID', e.cause, e.cause_ref, e.now
                  FROM event e, order_moved o),
            announced AS (
                INSERT INTO outbox_events (event_type, aggregate_type, aggregate_id, payload, next_attempt_at, created_at,
                    traceparent)
                SELECT ?, 'order', o.order_id,
                       jsonb_build_object('orderId', o.order_id, 'paymentId', m.payment_id, 'userId', m.user_id),
                       e.now, e.now, CAST(? AS text)
                  FROM event e, order_moved o, payment_moved m
                ON CONFLICT (event_type, aggregate_type, aggregate_id) DO NOTHING)
            SELECT i.status, p.payment_id, RECORD_OPEN AS record_open
              FROM inbox i
             CROSS JOIN payment p""";

    private final SqlRows sql;
    /**
     * The statement for each target state, with the states it may move from written into it: an array parameter would
     * make PostgreSQL plan the statement again on every call (decision 0018).
     */
    private final Map<Payment.Status, String> statements = new EnumMap<>(Payment.Status.class);

    KnownPaymentSettlement(SqlRows sql) {
        this.sql = sql;
        String orderSources = literals(OrderStates.MACHINE.sourcesOf(Order.Status.PAID));
        for (Payment.Status target : Payment.Status.values()) {
            Set<Payment.Status> sources = PaymentStates.MACHINE.sourcesOf(target);
            if (!sources.isEmpty()) {
                statements.put(target, STATEMENT.replace("PAYMENT_SOURCES", literals(sources))
                        .replace("ORDER_SOURCES", orderSources)
                        .replace("RECORD_OPEN", IdempotencyService.recordOpenCondition("p.idempotency_record_id")));
            }
        }
    }

    /** Whether the event is one this statement may settle: about a payment, naming it, its amount and currency. */
    static boolean applies(ProviderEvent event) {
        return event.refund() == null && event.status() != null && event.providerPaymentId() != null
                && event.amount() != null && event.currency() != null;
    }

    /**
     * Records and applies the event in one statement, atomic on its own (the caller's transaction, or none), with
     * lock waits limited to {@code lockTimeout}; empty, having written nothing, when the event is not a new one for a
     * payment that knows its provider payment id and agrees on amount and currency.
     */
    Optional<Settled> settle(String provider, ProviderEvent event, String payload, Duration lockTimeout, Instant now) {
        Payment.Status target = PaymentOutcomes.statusFor(event.status());
        Cause cause = Cause.webhook(event.eventId());
        List<Settled> settled = sql.list(statements.get(target),
                row -> new Settled(DeliveryOutcome.valueOf(row.getString(1)), row.getString(2), row.getBoolean(3)),
                lockTimeout.toMillis() + "ms", provider, event.eventId(), event.type(), event.providerPaymentId(),
                event.created(), event.amount(), event.currency(), target.name(), cause.kind(), cause.ref(), now, payload,
                OrderSettlement.ORDER_PAID, TraceContexts.currentTraceparent());
        return settled.stream().findFirst();
    }

    /** The states as SQL literals: enum constant names, which need no quoting beyond the quotes. */
    private static String literals(Set<? extends Enum<?>> states) {
        return states.stream().map(state -> "'" + state.name() + "'").sorted().collect(Collectors.joining(", "));
    }
}
