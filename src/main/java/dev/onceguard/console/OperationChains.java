package dev.onceguard.console;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.onceguard.console.OperationChain.Effect;
import dev.onceguard.console.OperationChain.Item;
import dev.onceguard.console.OperationChain.KeyRecord;
import dev.onceguard.console.OperationChain.Order;
import dev.onceguard.console.OperationChain.OutboxEvent;
import dev.onceguard.console.OperationChain.Payment;
import dev.onceguard.console.OperationChain.TimelineEntry;
import dev.onceguard.console.OperationChain.Transition;
import dev.onceguard.idempotency.IdempotencyRecordQueries;
import dev.onceguard.payment.PaymentService;
import dev.onceguard.payment.refund.RefundService;
import dev.onceguard.platform.Cause;
import dev.onceguard.platform.Problem;
import jakarta.enterprise.context.ApplicationScoped;
import org.eclipse.microprofile.config.inject.ConfigProperty;

import java.io.IOException;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Map;
import java.util.List;
import java.util.Optional;

import static dev.onceguard.console.ConsoleReads.nullableInt;
import static dev.onceguard.platform.SqlRows.instant;

/**
 * Reads the whole chain of one idempotency record ({@link OperationChain}) with a dozen indexed lookups: by the
 * record's id, its order id, that order's payment ids and their provider payment ids; and one order's page, the
 * chains of every operation on it.
 */
@ApplicationScoped
public class OperationChains {

    /** Same-cart operations shown on each side of the record, nearest first. */
    static final int SAME_CART_SHOWN = 5;
    private static final int RELATED_SHOWN = 50;
    private static final String LICENSE = "license";

    /** @param operations worst verdict first, then oldest first; never empty (the order's own creation is one) */
    public record OrderPage(Order order, List<OperationChain> operations, OperationChain chain) {

        public String userHref() {
            return ConsoleLinks.user(order.userId());
        }
    }

    private final ConsoleReads reads;
    private final IdempotencyRecordQueries records;
    private final ObjectMapper json;
    private final Duration doubleSubmissionWindow;
    private final JobSwitches jobSwitches;
    private final RequestLogs requestLogs;

    public OperationChains(ConsoleReads reads, IdempotencyRecordQueries records, ObjectMapper json,
                           @ConfigProperty(name = "onceguard.console.double-submission-window") Duration doubleSubmissionWindow,
                           JobSwitches jobSwitches, RequestLogs requestLogs) {
        this.reads = reads;
        this.records = records;
        this.json = json;
        this.doubleSubmissionWindow = doubleSubmissionWindow;
        this.jobSwitches = jobSwitches;
        this.requestLogs = requestLogs;
    }

    public Optional<OperationChain> load(long recordId) {
        return records.record(recordId, row -> {
            JsonNode problem = problemOf(row);
            return new KeyRecord(row.getLong("id"), row.getString("idempotency_key"), row.getString("user_id"),
                    row.getString("operation"), row.getString("status"), row.getString("fingerprint"),
                    row.getString("recovery_point"), instant(row, "lease_expires_at"),
                    nullableInt(row, "response_status"), text(problem, "code"), text(problem, "title"),
                    row.getString("resource_type"), row.getString("resource_id"), row.getString("request_id"),
                    row.getString("client_request_id"), row.getInt("replay_count"), instant(row, "last_replayed_at"),
                    instant(row, "created_at"), instant(row, "completed_at"), instant(row, "expires_at"),
                    new RecordEnding(row.getBoolean("ending_recorded"), row.getString("finished_by"),
                            row.getString("finished_by_ref"), nullableInt(row, "first_answer_status"),
                            instant(row, "first_answered_at"), row.getString("request_id"),
                            instant(row, "created_at"), instant(row, "completed_at")));
        }).map(this::chainOf);
    }

    /**
     * One order's page: every operation on it (the order's creation, each payment attempt, and any later operation
     * whose record names the order or one of its payments), each with its verdict, requests and answers, the worst
     * verdict first; the order's payments, webhook deliveries, transitions, outbox events and effects are those of any
     * of its operations' chains.
     */
    public Optional<OrderPage> orderPage(String orderId) {
        List<Long> recordIds = records.existing(reads.list("""
                        SELECT idempotency_record_id FROM orders WHERE order_id = ? AND idempotency_record_id IS NOT NULL
                        UNION
                        SELECT idempotency_record_id FROM payments WHERE order_id = ? AND idempotency_record_id IS NOT NULL
                        UNION
                        SELECT idempotency_record_id FROM refunds WHERE order_id = ? AND idempotency_record_id IS NOT NULL""",
                row -> row.getLong(1), orderId, orderId, orderId).toArray(Long[]::new));
        List<OperationChain> operations = recordIds.stream().flatMap(id -> load(id).stream())
                .sorted(Comparator.comparingInt((OperationChain chain) -> -severity(chain.verdict().tone())))
                .toList();
        Optional<OperationChain> withOrder = operations.stream().filter(chain -> chain.order() != null).findFirst();
        return withOrder.map(chain -> new OrderPage(chain.order(), operations, chain));
    }

    private static int severity(String tone) {
        return switch (tone) {
            case "bad" -> 2;
            case "warn" -> 1;
            default -> 0;
        };
    }

    private OperationChain chainOf(KeyRecord record) {
        RequestHistory history = requestLogs.of(record.id());
        Order order = orderIdOf(record).flatMap(this::order).orElse(null);
        String orderId = order == null ? null : order.orderId();
        List<Item> items = orderId == null ? List.of() : items(orderId);
        List<Payment> payments = orderId == null ? List.of() : payments(orderId);
        List<InboxEvents.Event> webhookEvents = orderId == null ? List.of() : webhookEvents(orderId);
        List<Transition> transitions = orderId == null ? List.of() : transitions(orderId, payments, webhookEvents);
        List<OutboxEvent> outboxEvents = orderId == null ? List.of() : outboxEvents(orderId);
        List<Effect> effects = orderId == null ? List.of() : effects(orderId);
        List<OperationRow> onSameOrder = orderId == null ? List.of() : onSameOrder(record.id(), orderId);
        List<Verdict.SameCart> sameCart = sameCart(record);
        Instant now = Instant.now();
        int charges = (int) payments.stream().filter(p -> p.status().equals("SUCCEEDED")).count();
        JobSwitches.RecoveryJobs jobs = new JobSwitches.RecoveryJobs(jobSwitches.recoveryWarnings());
        PaymentStory story = storyOf(record, payments, transitions, history.requests(), charges, jobs, now);
        Verdict verdict = Verdict.of(new Verdict.Facts(record.status(), record.leaseExpiresAt(), record.recoveryPoint(),
                record.replayCount(), record.responseStatus(), record.refusalCode(), history.conflicts().size(),
                order == null ? 0 : 1, charges, webhookEvents.stream().mapToInt(e -> e.deliveryCount() - 1).sum(),
                (int) effects.stream().filter(e -> e.kind().equals(LICENSE)).count(),
                sameCart, doubleSubmissionWindow, now), story, jobs, record.ending());
        List<TimelineEntry> timeline = timeline(record, history.conflicts(), order, payments, webhookEvents,
                transitions, outboxEvents, effects, sameCart, story);
        return new OperationChain(record, history, order, items, payments, webhookEvents, transitions, outboxEvents,
                effects, onSameOrder, verdict, timeline);
    }

    /** The stored answer's problem body, when the answer is a refusal; null otherwise. */
    private JsonNode problemOf(ResultSet row) throws SQLException {
        byte[] body = row.getBytes("response_body");
        if (body == null || !Problem.MEDIA_TYPE.equals(row.getString("content_type"))) {
            return null;
        }
        try {
            return json.readTree(body);
        } catch (IOException e) {
            return null;
        }
    }

    private static String text(JsonNode node, String field) {
        return node == null || !node.hasNonNull(field) ? null : node.get(field).asText();
    }

    private Optional<String> orderIdOf(KeyRecord record) {
        if ("order".equals(record.resourceType()) && record.resourceId() != null) {
            return Optional.of(record.resourceId());
        }
        if ("payment".equals(record.resourceType()) && record.resourceId() != null) {
            return reads.one("SELECT order_id FROM payments WHERE payment_id = ?", row -> row.getString(1), record.resourceId());
        }
        if (RefundService.RESOURCE_TYPE.equals(record.resourceType()) && record.resourceId() != null) {
            return reads.one("SELECT order_id FROM refunds WHERE refund_id = ?", row -> row.getString(1), record.resourceId());
        }
        return Optional.empty();
    }

    private Optional<Order> order(String orderId) {
        return reads.one("""
                        SELECT order_id, user_id, status, total, currency, request_id, created_at, updated_at
                          FROM orders WHERE order_id = ?""",
                row -> new Order(row.getString("order_id"), row.getString("user_id"), row.getString("status"),
                        row.getBigDecimal("total"), row.getString("currency"), row.getString("request_id"),
                        instant(row, "created_at"), instant(row, "updated_at")),
                orderId);
    }

    private List<Item> items(String orderId) {
        return reads.list("""
                        SELECT i.product_id, p.name, i.quantity, i.unit_price
                          FROM order_items i JOIN products p ON p.product_id = i.product_id
                         WHERE i.order_id = ? ORDER BY i.line_no""",
                row -> new Item(row.getString("product_id"), row.getString("name"), row.getInt("quantity"),
                        row.getBigDecimal("unit_price")),
                orderId);
    }

    private List<Payment> payments(String orderId) {
        return reads.list(Payment.SELECT + " WHERE order_id = ? ORDER BY created_at, payment_id", Payment::of,
                orderId);
    }

    /** A payment operation's story; null for other operations, or before the payment exists. */
    private PaymentStory storyOf(KeyRecord record, List<Payment> payments, List<Transition> transitions,
                                 List<RequestHistory.Request> requests, int charges, JobSwitches.RecoveryJobs jobs,
                                 Instant now) {
        if (!PaymentService.OPERATION.equals(record.operation()) || !"payment".equals(record.resourceType())) {
            return null;
        }
        Optional<Payment> payment = payments.stream().filter(p -> p.paymentId().equals(record.resourceId())).findFirst();
        if (payment.isEmpty()) {
            return null;
        }
        List<Transition> moves = transitions.stream()
                .filter(t -> t.subjectType().equals("payment") && t.subjectId().equals(record.resourceId())).toList();
        return PaymentStory.of(new PaymentStory.Facts(record.status(), record.requestId(), record.createdAt(),
                record.leaseExpiresAt(), payment.get().status(), moves,
                requests, charges, jobs, now, record.ending()));
    }

    private List<InboxEvents.Event> webhookEvents(String orderId) {
        return reads.list("SELECT " + InboxEvents.Event.COLUMNS + """
                          FROM webhook_inbox
                         WHERE id IN (SELECT w2.id FROM payments p
                                          JOIN webhook_inbox w2 ON w2.provider = p.provider
                                                               AND w2.provider_payment_id = p.provider_payment_id
                                                               AND w2.payment_id IS NULL
                                         WHERE p.order_id = ?
                                        UNION
                                        SELECT w3.id FROM payments p JOIN webhook_inbox w3 ON w3.payment_id = p.payment_id
                                         WHERE p.order_id = ?)
                         ORDER BY received_at, id""",
                InboxEvents.Event::of, orderId, orderId);
    }

    private List<Transition> transitions(String orderId, List<Payment> payments, List<InboxEvents.Event> webhookEvents) {
        Map<String, String> eventTypes = new HashMap<>();
        webhookEvents.forEach(event -> eventTypes.put(event.eventId(), event.eventType()));
        return reads.list("""
                        SELECT t.subject_type, t.subject_id, t.from_status, t.to_status, t.cause, t.cause_ref,
                               t.occurred_at, a.actor AS admin_actor, a.reason AS admin_reason
                          FROM state_transitions t
                          LEFT JOIN console_audit a
                            ON a.id = CASE WHEN t.cause = 'admin' AND t.cause_ref ~ '^[0-9]{1,18}$'
                                           THEN t.cause_ref::bigint END
                         WHERE (t.subject_type = 'order' AND t.subject_id = ?)
                            OR (t.subject_type = 'payment' AND t.subject_id = ANY(?))
                         ORDER BY t.occurred_at, t.id""",
                row -> new Transition(row.getString("subject_type"), row.getString("subject_id"),
                        row.getString("from_status"), row.getString("to_status"), row.getString("cause"),
                        row.getString("cause_ref"), Cause.WEBHOOK.equals(row.getString("cause"))
                        ? eventTypes.get(row.getString("cause_ref")) : null, instant(row, "occurred_at"),
                        AdminAct.of(row.getString("admin_actor"), row.getString("admin_reason"))),
                orderId, payments.stream().map(Payment::paymentId).toArray(String[]::new));
    }

    private List<OutboxEvent> outboxEvents(String orderId) {
        return reads.list("""
                        SELECT o.id, o.event_type, o.status, o.attempts, o.last_error, o.created_at, o.processed_at,
                               a.id AS audit_id, a.actor, a.reason
                          FROM outbox_events o
                          LEFT JOIN LATERAL (
                                SELECT c.id, c.actor, c.reason, c.at FROM console_audit c
                                 WHERE c.target_type = 'outbox-event' AND c.target_id = o.id::text AND c.outcome = 'done'
                                UNION ALL
                                SELECT c.id, c.actor, c.reason, c.at
                                  FROM console_audit_rows r JOIN console_audit c ON c.id = r.audit_id
                                 WHERE r.target_id = o.id::text AND c.target_type = 'outbox-events' AND r.outcome = 'acted'
                                 ORDER BY at DESC LIMIT 1) a ON true
                         WHERE o.aggregate_type = 'order' AND o.aggregate_id = ? ORDER BY o.id""",
                row -> new OutboxEvent(row.getLong("id"), row.getString("event_type"), row.getString("status"),
                        row.getInt("attempts"), row.getString("last_error"), instant(row, "created_at"),
                        instant(row, "processed_at"), AdminAct.of(row.getString("actor"), row.getString("reason")),
                        row.getObject("audit_id", Long.class)),
                orderId);
    }

    private List<Effect> effects(String orderId) {
        return reads.list("""
                        SELECT 'license' AS kind, license_id AS id, NULL AS detail, created_at FROM licenses WHERE order_id = ?
                        UNION ALL
                        SELECT 'notification', notification_id, kind, created_at FROM notifications WHERE order_id = ?
                        UNION ALL
                        SELECT 'loyalty points', id::text, reason || ': ' || points || ' points', created_at
                          FROM loyalty_ledger WHERE order_id = ?
                        ORDER BY created_at""",
                row -> new Effect(row.getString("kind"), row.getString("id"), row.getString("detail"),
                        instant(row, "created_at")),
                orderId, orderId, orderId);
    }

    /** The other records whose resource is this order or one of its payments, such as the payments' own keys. */
    private List<OperationRow> onSameOrder(long recordId, String orderId) {
        return records.summaries(OperationLists.recordsOfOrder(reads, orderId), recordId, RELATED_SHOWN,
                OperationRow::of);
    }

    /** The nearest records of the same user, operation and fingerprint under other keys, on each side in time. */
    private List<Verdict.SameCart> sameCart(KeyRecord record) {
        return records.sameCartAround(record.id(), record.userId(), record.fingerprint(), record.operation(),
                record.createdAt(), SAME_CART_SHOWN, row -> {
                    Instant createdAt = instant(row, "created_at");
                    return new Verdict.SameCart(row.getLong("id"), row.getString("idempotency_key"),
                            row.getString("status"), createdAt, Duration.between(record.createdAt(), createdAt).abs(),
                            row.getString("order_id"));
                });
    }

    /** The start of a fingerprint, enough to tell two apart in the timeline; the tables show them whole. */
    private static String prefix(String fingerprint) {
        return fingerprint.substring(0, Math.min(12, fingerprint.length())) + "…";
    }

    /** "Operation finished by lease recovery (run 41): stored answer 201"; no "by" when that was not kept yet. */
    private static TimelineEntry finished(KeyRecord record, String storedAnswer) {
        RecordEnding ending = record.ending();
        String by = ending.known() && ending.finishedBy() != null ? " by " + ending.finisherText()
                : ending.recorded() ? "" : " (what finished it was not recorded then)";
        return new TimelineEntry(record.completedAt(), "Operation finished" + by + ": stored answer " + storedAnswer,
                "The record became " + record.status() + "; every retry with this key from now on gets this stored "
                        + "answer.", ending.finisherHref());
    }

    private static List<TimelineEntry> timeline(KeyRecord record, List<RequestHistory.Conflict> conflicts,
                                                Order order, List<Payment> payments,
                                                List<InboxEvents.Event> webhookEvents, List<Transition> transitions,
                                                List<OutboxEvent> outboxEvents, List<Effect> effects,
                                                List<Verdict.SameCart> sameCart, PaymentStory story) {
        List<TimelineEntry> entries = new ArrayList<>();
        entries.add(new TimelineEntry(record.createdAt(), "First request " + record.requestId(),
                record.operation() + " with key " + record.key() + ", fingerprint " + prefix(record.fingerprint()), null));
        if (story != null) {
            entries.addAll(story.answers());
            if (record.completedAt() != null) {
                entries.add(finished(record, String.valueOf(record.responseStatus())));
            }
        } else if (record.completedAt() != null) {
            String answer = record.responseStatus() + (record.refusalCode() == null ? "" : " " + record.refusalCode());
            entries.add(record.ending().byItsOwnAnswer()
                    ? new TimelineEntry(record.completedAt(), "Answered " + answer,
                    "The record became " + record.status() + "; every retry with this key gets this stored answer.", null)
                    : finished(record, answer));
            if (record.ending().firstRequestUnanswered()) {
                entries.add(new TimelineEntry(record.createdAt(), "Request " + record.requestId()
                        + (record.clientRequestId() == null ? "" : " (the client's " + record.clientRequestId() + ")")
                        + ": no answer recorded",
                        "The process died before it answered this request, so the client got no answer.", null));
            }
        }
        if (record.lastReplayedAt() != null) {
            entries.add(new TimelineEntry(record.lastReplayedAt(), "Last replay",
                    "Retried " + record.replayCount() + (record.replayCount() == 1 ? " time" : " times")
                            + " with the same key and payload; each got the stored answer, nothing ran again.", null));
        }
        conflicts.forEach(conflict -> entries.add(new TimelineEntry(conflict.at(),
                "Key reused with another payload, request " + conflict.requestId(),
                "Refused with 422; fingerprint " + prefix(conflict.conflictingFingerprint()) + " instead of "
                        + prefix(conflict.originalFingerprint()) + ".", null)));
        if (order != null) {
            entries.add(new TimelineEntry(order.createdAt(), "Order " + order.orderId() + " created",
                    order.total() + " " + order.currency() + ", by request " + order.requestId() + "; now " + order.status() + ".",
                    null));
        }
        payments.forEach(payment -> entries.add(new TimelineEntry(payment.createdAt(),
                "Payment attempt " + payment.paymentId(), "At " + payment.provider() + " with provider key "
                        + payment.providerIdempotencyKey() + "; now " + payment.status() + ".",
                payment.idempotencyRecordId() == null ? null
                        : "/console/operations/" + payment.idempotencyRecordId())));
        transitions.forEach(transition -> entries.add(new TimelineEntry(transition.occurredAt(),
                transition.subjectType() + " " + transition.subjectId() + ": " + (transition.fromStatus() == null
                        ? "" : transition.fromStatus() + " → ") + transition.toStatus(),
                "Cause: " + transition.causeText() + ".", transition.causeHref())));
        webhookEvents.forEach(event -> entries.add(new TimelineEntry(event.receivedAt(),
                "Webhook " + event.eventType() + " from " + event.provider(), "Event " + event.eventId() + ": "
                        + event.status() + (event.reason() == null ? "" : " (" + event.reason() + ")") + ", delivered "
                        + event.deliveryCount() + (event.deliveryCount() == 1 ? " time." : " times, recorded once."),
                null)));
        for (OutboxEvent event : outboxEvents) {
            entries.add(new TimelineEntry(event.createdAt(), "Outbox event " + event.eventType() + " queued",
                    "Event " + event.id() + " written with the state change that announces it.", null));
            if (event.processedAt() != null) {
                entries.add(new TimelineEntry(event.processedAt(), "Outbox event " + event.eventType() + " delivered",
                        "After " + event.attempts() + (event.attempts() == 1 ? " attempt." : " attempts."), null));
            }
        }
        effects.forEach(effect -> entries.add(new TimelineEntry(effect.createdAt(), "Effect: " + effect.kind(),
                effect.id() + (effect.detail() == null ? "" : " (" + effect.detail() + ")"), null)));
        sameCart.forEach(other -> entries.add(new TimelineEntry(other.createdAt(), "Same cart under another key",
                "Key " + other.key() + ", " + other.status() + ", " + other.apartText() + " apart.",
                "/console/operations/" + other.id())));
        entries.sort(Comparator.comparing(TimelineEntry::at));
        String here = ConsoleLinks.operation(record.id());
        return entries.stream().map(entry -> here.equals(entry.href())
                ? new TimelineEntry(entry.at(), entry.title(), entry.detail(), null) : entry).toList();
    }
}
