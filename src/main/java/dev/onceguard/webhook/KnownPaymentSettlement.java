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
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.EnumMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import static java.util.Collections.nCopies;

/**
 * New events about payments that already know their provider payment id, recorded and applied in one statement
 * (decision 0037) that settles every such event the replica's workers hold at that moment, up to
 * {@value #MOST_EVENTS} (decision 0049): each payment is found and locked with its event's amount and currency as
 * conditions, each inbox row is inserted already decided (PROCESSED when the payment may move to what the event says,
 * IGNORED when it may not), and, for a PROCESSED one, the payment's move, its transition, the order's move to PAID,
 * that transition and the {@value OrderSettlement#ORDER_PAID} outbox row follow from the rows the statement returned
 * to itself: the same conditional moves and rows as {@link dev.onceguard.platform.StateMachine#move} and
 * {@link OrderSettlement#markPaid} write. The statement also reads whether each payment's idempotency record is still
 * open, so that a record is finished through the engine only when there is something to finish.
 * <p>
 * A worker whose event arrives while {@value #MOST_STATEMENTS} statements are running waits, and the next worker free
 * to send one takes every waiting event with the same target status, one per payment and per event id; a statement
 * the database refuses is sent again for each of its events alone, so that one event's trouble (a lock wait past the
 * timeout) is only its own. Any other event (no such payment yet, another amount or currency, an inbox row already
 * there, a refund) writes nothing here and is answered by {@link WebhookInbox}'s general path.
 */
@ApplicationScoped
class KnownPaymentSettlement {

    /**
     * What the statement did: the inbox row's outcome, its payment, whether that payment's record is open, and when the
     * statement was sent. The event's deliveries are ordered by that instant: it precedes the statement's commit, so
     * every other delivery of the event is decided after it, however late this caller wakes once the statement
     * answered.
     */
    record Settled(DeliveryOutcome outcome, String paymentId, boolean recordOpen, Instant decidedAt) {
    }

    /** One event waiting for a statement, with what its caller waits on. */
    private record Waiting(String provider, ProviderEvent event, Payment.Status target, List<Object> values,
                           CompletableFuture<Optional<Settled>> settled) {

        boolean sharesPaymentOrEventWith(Waiting other) {
            return provider.equals(other.provider) && (event.eventId().equals(other.event.eventId())
                    || event.providerPaymentId().equals(other.event.providerPaymentId()));
        }
    }

    /**
     * Events in one statement at most: eight cost PostgreSQL a third of what eight statements do (decision 0049), and
     * a statement text is prepared per count.
     */
    private static final int MOST_EVENTS = 8;
    /** Statements running at once: one can wait for its commit while the next one's events gather. */
    private static final int MOST_STATEMENTS = 2;

    private static final String EVENT_VALUES = """
            (CAST(? AS text), CAST(? AS text), CAST(? AS text), CAST(? AS text), CAST(? AS timestamptz),
             CAST(? AS numeric), CAST(? AS text), CAST(? AS timestamptz), CAST(? AS jsonb), CAST(? AS text))""";

    private static final String STATEMENT = """
            WITH settings AS (
                SELECT set_config('lock_timeout', ?, true) AS lock_timeout, CAST(? AS text) AS target,
                       CAST(? AS text) AS announcement, CAST(? AS text) AS cause),
            event AS (
                SELECT s.target, s.announcement, s.cause, v.*
                  FROM settings s,
                       (VALUES EVENTS) AS v(provider, event_id, event_type, provider_payment_id, created_at, amount,
                                          currency, now, payload, traceparent)),
            payment AS (
                SELECT e.event_id, p.payment_id, p.order_id, p.user_id, p.status, p.idempotency_record_id
                  FROM event e
                  JOIN payments p ON p.provider = e.provider AND p.provider_payment_id = e.provider_payment_id
                                 AND p.amount = e.amount AND p.currency = e.currency
                 WHERE NOT EXISTS (SELECT 1 FROM webhook_inbox i WHERE i.provider = e.provider AND i.event_id = e.event_id)
                 ORDER BY p.payment_id
                   FOR UPDATE OF p),
            inbox AS (
                INSERT INTO webhook_inbox (provider, event_id, event_type, provider_payment_id, event_created_at,
                    payload, status, reason, payment_id, received_at, last_delivered_at, processed_at)
                SELECT e.provider, e.event_id, e.event_type, e.provider_payment_id, e.created_at, e.payload,
                       CASE WHEN p.status IN (PAYMENT_SOURCES) THEN 'PROCESSED' ELSE 'IGNORED' END,
                       CASE WHEN p.status IN (PAYMENT_SOURCES) THEN NULL
                            ELSE 'stale or repeated (payment is ' || p.status || ')' END,
                       p.payment_id, e.now, e.now, e.now
                  FROM event e JOIN payment p ON p.event_id = e.event_id
                ON CONFLICT (provider, event_id) DO NOTHING
                RETURNING event_id, status),
            payment_moved AS (
                UPDATE payments t SET status = e.target, updated_at = e.now
                  FROM event e JOIN payment p ON p.event_id = e.event_id JOIN inbox i ON i.event_id = e.event_id
                 WHERE t.payment_id = p.payment_id AND i.status = 'PROCESSED'
                RETURNING e.event_id, t.payment_id, t.order_id, t.user_id, p.status AS from_status),
            payment_transition AS (
                INSERT INTO state_transitions (subject_type, subject_id, from_status, to_status, cause, cause_ref,
                    occurred_at)
                SELECT 'payment', m.payment_id, m.from_status, e.target, e.cause, e.event_id, e.now
                  FROM event e JOIN payment_moved m ON m.event_id = e.event_id),
            order_before AS (
                SELECT m.event_id, o.order_id, o.status
                  FROM event e JOIN payment_moved m ON m.event_id = e.event_id
                  JOIN orders o ON o.order_id = m.order_id
                 WHERE e.target = 'SUCCEEDED'
                 ORDER BY o.order_id
                   FOR UPDATE OF o),
            order_moved AS (
                UPDATE orders t SET status = 'PAID', updated_at = e.now
                  FROM event e JOIN order_before b ON b.event_id = e.event_id
                 WHERE t.order_id = b.order_id AND b.status IN (ORDER_SOURCES)
                RETURNING e.event_id, t.order_id, b.status AS from_status),
            order_transition AS (
                INSERT INTO state_transitions (subject_type, subject_id, from_status, to_status, cause, cause_ref,
                    occurred_at)
                SELECT 'order', o.order_id, o.from_status, 'PAID', e.cause, e.event_id, e.now
                  FROM event e JOIN order_moved o ON o.event_id = e.event_id),
            announced AS (
                INSERT INTO outbox_events (event_type, aggregate_type, aggregate_id, payload, next_attempt_at, created_at,
                    traceparent)
                SELECT e.announcement, 'order', o.order_id,
                       jsonb_build_object('orderId', o.order_id, 'paymentId', m.payment_id, 'userId', m.user_id),
                       e.now, e.now, e.traceparent
                  FROM event e JOIN order_moved o ON o.event_id = e.event_id
                  JOIN payment_moved m ON m.event_id = e.event_id
                ON CONFLICT (event_type, aggregate_type, aggregate_id) DO NOTHING)
            SELECT i.event_id, i.status, p.payment_id, RECORD_OPEN AS record_open
              FROM inbox i
              JOIN payment p ON p.event_id = i.event_id""";

    private final SqlRows sql;
    /**
     * The statement for each target state and count of events (at index count - 1), with the states it may move from
     * written into it: an array parameter would make PostgreSQL plan the statement again on every call (decision 0018).
     */
    private final Map<Payment.Status, String[]> statements = new EnumMap<>(Payment.Status.class);
    private final Deque<Waiting> waiting = new ArrayDeque<>();
    private final ReentrantLock turns = new ReentrantLock();
    private final Condition turnEnded = turns.newCondition();
    private int running;

    KnownPaymentSettlement(SqlRows sql) {
        this.sql = sql;
        String orderSources = literals(OrderStates.MACHINE.sourcesOf(Order.Status.PAID));
        for (Payment.Status target : Payment.Status.values()) {
            Set<Payment.Status> sources = PaymentStates.MACHINE.sourcesOf(target);
            if (!sources.isEmpty()) {
                String statement = STATEMENT.replace("PAYMENT_SOURCES", literals(sources))
                        .replace("ORDER_SOURCES", orderSources)
                        .replace("RECORD_OPEN", IdempotencyService.recordOpenCondition("p.idempotency_record_id"));
                statements.put(target, IntStream.rangeClosed(1, MOST_EVENTS)
                        .mapToObj(count -> statement.replace("EVENTS", String.join(", ", nCopies(count, EVENT_VALUES))))
                        .toArray(String[]::new));
            }
        }
    }

    /** Whether the event is one this statement may settle: about a payment, naming it, its amount and currency. */
    static boolean applies(ProviderEvent event) {
        return event.refund() == null && event.status() != null && event.providerPaymentId() != null
                && event.amount() != null && event.currency() != null;
    }

    /**
     * Records and applies the event, atomic on its own (no transaction around it), with lock waits limited to
     * {@code lockTimeout}; empty, having written nothing, when the event is not a new one for a payment that knows its
     * provider payment id and agrees on amount and currency.
     */
    Optional<Settled> settle(String provider, ProviderEvent event, String payload, Duration lockTimeout, Instant now) {
        Waiting mine = new Waiting(provider, event, PaymentOutcomes.statusFor(event.status()),
                Arrays.asList(provider, event.eventId(), event.type(), event.providerPaymentId(), event.created(),
                        event.amount(), event.currency(), now, payload, TraceContexts.currentTraceparent()),
                new CompletableFuture<>());
        List<Waiting> batch = takeTurn(mine);
        if (!batch.isEmpty()) {
            try {
                settleAll(batch, lockTimeout);
            } finally {
                batch.forEach(each -> each.settled().completeExceptionally(new IllegalStateException("not settled")));
                endTurn();
            }
        }
        try {
            return mine.settled().join();
        } catch (CompletionException e) {
            throw e.getCause() instanceof RuntimeException failure ? failure : e;
        }
    }

    /**
     * Queues the event and waits until a running statement took it (then answers none) or a statement may start: then
     * answers the events that statement settles, the event first.
     */
    private List<Waiting> takeTurn(Waiting event) {
        turns.lock();
        try {
            waiting.add(event);
            while (waiting.contains(event) && running == MOST_STATEMENTS) {
                turnEnded.awaitUninterruptibly();
            }
            if (!waiting.remove(event)) {
                return List.of();
            }
            running++;
            List<Waiting> batch = new ArrayList<>(List.of(event));
            for (Iterator<Waiting> next = waiting.iterator(); next.hasNext() && batch.size() < MOST_EVENTS; ) {
                Waiting candidate = next.next();
                if (candidate.target() == event.target() && batch.stream().noneMatch(candidate::sharesPaymentOrEventWith)) {
                    batch.add(candidate);
                    next.remove();
                }
            }
            return batch;
        } finally {
            turns.unlock();
        }
    }

    private void endTurn() {
        turns.lock();
        try {
            running--;
            turnEnded.signalAll();
        } finally {
            turns.unlock();
        }
    }

    /** One statement for the batch; when the database refuses it, one statement for each of its events. */
    private void settleAll(List<Waiting> batch, Duration lockTimeout) {
        List<Object> parameters = new ArrayList<>(List.of(lockTimeout.toMillis() + "ms", batch.get(0).target().name(),
                OrderSettlement.ORDER_PAID, Cause.WEBHOOK));
        batch.forEach(each -> parameters.addAll(each.values()));
        try {
            Instant sentAt = Instant.now();
            List<Map.Entry<String, Settled>> rows = sql.list(statements.get(batch.get(0).target())[batch.size() - 1],
                    row -> Map.entry(row.getString(1), new Settled(DeliveryOutcome.valueOf(row.getString(2)),
                            row.getString(3), row.getBoolean(4), sentAt)), parameters.toArray());
            Map<String, Settled> settled = rows.stream().collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue));
            batch.forEach(each -> each.settled().complete(Optional.ofNullable(settled.get(each.event().eventId()))));
        } catch (RuntimeException e) {
            if (batch.size() == 1) {
                batch.get(0).settled().completeExceptionally(e);
            } else {
                batch.forEach(each -> settleAll(List.of(each), lockTimeout));
            }
        }
    }

    /** The states as SQL literals: enum constant names, which need no quoting beyond the quotes. */
    private static String literals(Set<? extends Enum<?>> states) {
        return states.stream().map(state -> "'" + state.name() + "'").sorted().collect(Collectors.joining(", "));
    }
}
