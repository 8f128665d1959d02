package dev.onceguard.console;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.onceguard.payment.provider.PaymentProvider;
import dev.onceguard.platform.Cause;
import dev.onceguard.platform.KeysetQuery;
import dev.onceguard.webhook.DeliveryOutcome;
import dev.onceguard.webhook.SecretFields;
import dev.onceguard.webhook.WebhookInbox;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Instance;

import java.io.IOException;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;

import static dev.onceguard.platform.SqlRows.instant;

/**
 * The webhook inbox for the console: events newest first, the last day's delivery summary, one event's page, and
 * "reprocess".
 */
@ApplicationScoped
public class InboxEvents {

    static final int COUNT_LIMIT = 1000;
    static final Set<String> REPROCESSABLE = Set.of("FAILED", "IGNORED", "PENDING_MATCH");
    static final Set<String> STATUSES = Set.of("PROCESSED", "IGNORED", "FAILED", "REJECTED", "PENDING_MATCH");
    private static final String PROVIDER_FORMAT = "[A-Za-z0-9_.-]{1,64}";

    static final List<CsvExport.Column<Event>> CSV = List.of(
            new CsvExport.Column<>("inbox_id", Event::id),
            new CsvExport.Column<>("provider", Event::provider),
            new CsvExport.Column<>("event_id", Event::eventId),
            new CsvExport.Column<>("event_type", Event::eventType),
            new CsvExport.Column<>("status", Event::status),
            new CsvExport.Column<>("delivery_count", Event::deliveryCount),
            new CsvExport.Column<>("received_at", Event::receivedAt),
            new CsvExport.Column<>("last_delivered_at", Event::lastDeliveredAt),
            new CsvExport.Column<>("reason", Event::reason),
            new CsvExport.Column<>("last_error", Event::lastError));

    /** One event of the inbox, as its list, its own page and an order's story show it (its payload aside). */
    public record Event(long id, String provider, String eventId, String eventType, String providerPaymentId,
                        String paymentId, String status, String reason, String lastError, int deliveryCount,
                        Instant eventCreatedAt, Instant receivedAt, Instant lastDeliveredAt, Instant processedAt) {

        static final String COLUMNS = """
                id, provider, event_id, event_type, provider_payment_id, payment_id, status, reason, last_error,
                delivery_count, event_created_at, received_at, last_delivered_at, processed_at""";

        static Event of(ResultSet row) throws SQLException {
            return new Event(row.getLong("id"), row.getString("provider"), row.getString("event_id"),
                    row.getString("event_type"), row.getString("provider_payment_id"), row.getString("payment_id"),
                    row.getString("status"), row.getString("reason"), row.getString("last_error"),
                    row.getInt("delivery_count"), instant(row, "event_created_at"), instant(row, "received_at"),
                    instant(row, "last_delivered_at"), instant(row, "processed_at"));
        }

        public String href() {
            return ConsoleLinks.webhookEvent(id);
        }

        /** FAILED, IGNORED and PENDING_MATCH events can be applied again by an admin. */
        public boolean reprocessable() {
            return REPROCESSABLE.contains(status);
        }

        public String statusClass() {
            return StatusBadges.webhookEvent(status);
        }
    }

    /** Deliveries of the last 24 hours per provider, from the hourly counts every replica keeps. */
    public record ProviderDay(String provider, long processed, long duplicate, long ignored, long rejected,
                              long pendingMatch, long rejectedSignature, long failed) {
    }

    /** Events delivered more than once whose latest delivery is in the last 24 hours. */
    public record Duplicates(String provider, String eventType, long events, long extraDeliveries) {
    }

    public record Summary(List<ProviderDay> providers, List<Duplicates> duplicates, CappedCount failed,
                          CappedCount rejected, CappedCount pendingMatch) {
    }

    public record Filter(String status, String provider) {

        static Filter of(String status, String provider) {
            String wantedStatus = status == null || status.isEmpty() ? null : status;
            String wantedProvider = provider == null || provider.isEmpty() ? null : provider;
            if (wantedStatus != null && !STATUSES.contains(wantedStatus)) {
                throw ConsoleRequestRejected.badRequest("Status must be PROCESSED, IGNORED, FAILED, REJECTED or PENDING_MATCH.");
            }
            if (wantedProvider != null && !wantedProvider.matches(PROVIDER_FORMAT)) {
                throw ConsoleRequestRejected.badRequest("A provider name is letters, digits, '.', '_' or '-'.");
            }
            return new Filter(wantedStatus, wantedProvider);
        }
    }

    private record KindTotal(String kind, long total) {
    }

    private record Current(String status, String explanation) {
    }

    /**
     * A condition on a status other than PROCESSED that says so, so that the planner may use the index of unprocessed
     * events, which a bound status alone does not let it choose (decision 0047).
     */
    static final String STATUS_NOT_PROCESSED = "status = ? AND status <> 'PROCESSED'";

    public record Delivery(Instant at, String outcome, int httpStatus) {
    }

    /** The payment the event is about, with its order and user; the record id links its operation page. */
    public record About(String paymentId, String paymentStatus, String orderId, String userId, Long recordId) {

        public String paymentHref() {
            return recordId == null ? ConsoleLinks.operationsOfOrder(orderId) : ConsoleLinks.operation(recordId);
        }

        public String orderHref() {
            return ConsoleLinks.order(orderId);
        }

        public String userHref() {
            return ConsoleLinks.user(userId);
        }
    }

    /**
     * How an unsigned notification (YooKassa's) was confirmed: where it came from, and the payment as the provider's
     * API read it back ({@code readBackError} when it did not confirm the notification).
     */
    public record ReadBack(String sourceAddress, String status, String amount, String readBackError) {
    }

    /** @param payload the event as received, every value under a secret-looking name hidden */
    public record Page(Event event, String payload, String signatureScheme, List<Delivery> deliveries,
                       About about, ReadBack readBack, List<AuditLog.Taken> adminActions) {

        /** Deliveries counted before each one was logged (events older than the delivery log). */
        public int unlogged() {
            return Math.max(0, event.deliveryCount() - deliveries.size());
        }
    }

    private final ConsoleReads reads;
    private final WebhookInbox inbox;
    private final Instance<PaymentProvider> adapters;
    private final ObjectMapper json;
    private final AuditLog audit;

    public InboxEvents(ConsoleReads reads, WebhookInbox inbox, Instance<PaymentProvider> adapters, ObjectMapper json,
                       AuditLog audit) {
        this.reads = reads;
        this.inbox = inbox;
        this.adapters = adapters;
        this.json = json;
        this.audit = audit;
    }

    KeysetPage<Event> list(Filter filter, Optional<Cursor> after) {
        KeysetQuery query = KeysetQuery
                .newestFirst("SELECT " + Event.COLUMNS + " FROM webhook_inbox", "received_at", "id", KeysetPage.SIZE)
                .whereGiven("PROCESSED".equals(filter.status()) ? "status = ?" : STATUS_NOT_PROCESSED, filter.status())
                .whereGiven("provider = ?", filter.provider());
        after.ifPresent(cursor -> query.after(cursor.at(), cursor.number()));
        return reads.page(query, Event::of, row -> new Cursor(row.receivedAt(), row.id()));
    }

    Summary summary() {
        Map<String, Map<String, Long>> byProvider = new TreeMap<>();
        providers().forEach(provider -> byProvider.put(provider, new TreeMap<>()));
        List<KindTotal> counted = reads.list("""
                        SELECT kind, sum(count) AS total FROM activity_hourly
                         WHERE hour >= date_trunc('hour', now()) - interval '23 hours' AND kind LIKE 'webhooks.%'
                         GROUP BY kind""",
                row -> new KindTotal(row.getString("kind"), row.getLong("total")));
        for (KindTotal count : counted) {
            String kind = count.kind().substring("webhooks.".length());
            int dot = kind.lastIndexOf('.');
            if (dot > 0) {
                byProvider.computeIfAbsent(kind.substring(0, dot), p -> new TreeMap<>())
                        .put(kind.substring(dot + 1), count.total());
            }
        }
        List<ProviderDay> providers = byProvider.entrySet().stream().map(entry -> {
            Map<String, Long> counts = entry.getValue();
            return new ProviderDay(entry.getKey(), counts.getOrDefault(DeliveryOutcome.PROCESSED.label(), 0L),
                    counts.getOrDefault(DeliveryOutcome.DUPLICATE.label(), 0L),
                    counts.getOrDefault(DeliveryOutcome.IGNORED.label(), 0L),
                    counts.getOrDefault(DeliveryOutcome.REJECTED.label(), 0L),
                    counts.getOrDefault(DeliveryOutcome.PENDING_MATCH.label(), 0L),
                    counts.getOrDefault(DeliveryOutcome.REJECTED_SIGNATURE.label(), 0L),
                    counts.getOrDefault(DeliveryOutcome.FAILED.label(), 0L));
        }).toList();
        List<Duplicates> duplicates = reads.list("""
                        SELECT provider, event_type, count(*) AS events, sum(delivery_count - 1) AS extra
                          FROM webhook_inbox
                         WHERE delivery_count > 1 AND last_delivered_at >= now() - interval '24 hours'
                         GROUP BY provider, event_type
                         ORDER BY extra DESC, provider, event_type
                         LIMIT 50""",
                row -> new Duplicates(row.getString("provider"), row.getString("event_type"), row.getLong("events"),
                        row.getLong("extra")));
        return new Summary(providers, duplicates, countWithStatus("FAILED"), countWithStatus("REJECTED"),
                countWithStatus("PENDING_MATCH"));
    }

    private CappedCount countWithStatus(String status) {
        return reads.countUpTo(COUNT_LIMIT, "webhook_inbox", STATUS_NOT_PROCESSED, status);
    }

    /** The provider adapters of this build, for the filter; events of another provider are still listed. */
    Set<String> providers() {
        return adapters.stream().map(PaymentProvider::name).collect(Collectors.toCollection(TreeSet::new));
    }

    boolean exists(long id) {
        return reads.one("SELECT 1 FROM webhook_inbox WHERE id = ?", row -> true, id).isPresent();
    }

    /**
     * Applies a FAILED event again through the inbox's own path ({@link WebhookInbox#reprocess}): the same state
     * machine and the same conditional claim, so two operators, or an operator and a new delivery, apply it once.
     */
    ActionResult reprocess(long id, Cause cause) {
        Optional<DeliveryOutcome> outcome = inbox.reprocess(id, cause);
        Current current = reads.one(
                        "SELECT status, coalesce(reason, last_error, '') FROM webhook_inbox WHERE id = ?",
                        row -> new Current(row.getString(1), row.getString(2)), id)
                .orElse(new Current("gone", ""));
        if (outcome.isEmpty()) {
            return new ActionResult(AuditOutcome.ALREADY_RESOLVED, AdminNotice.WEBHOOK_ALREADY_RESOLVED,
                    "event is " + current.status() + ", not FAILED, IGNORED or PENDING_MATCH");
        }
        String explanation = current.explanation();
        return switch (outcome.get()) {
            case PROCESSED -> new ActionResult(AuditOutcome.DONE, AdminNotice.WEBHOOK_PROCESSED, "processed");
            case IGNORED -> new ActionResult(AuditOutcome.DONE, AdminNotice.WEBHOOK_IGNORED, "ignored: " + explanation);
            case REJECTED -> new ActionResult(AuditOutcome.DONE, AdminNotice.WEBHOOK_REJECTED, "rejected: " + explanation);
            case PENDING_MATCH -> new ActionResult(AuditOutcome.DONE, AdminNotice.WEBHOOK_PENDING_MATCH,
                    "still no matching payment: " + explanation);
            default -> new ActionResult(AuditOutcome.FAILED, AdminNotice.WEBHOOK_FAILED_AGAIN,
                    "failed again: " + explanation);
        };
    }

    /**
     * {@code /console/webhooks/{id}}: one inbox event as it was received (any value whose name says it is a secret or
     * a token shown as {@value SecretFields#HIDDEN}), the signature scheme that authenticated it (for an unsigned
     * notification: the address it came from and what reading its object back through the provider's API answered),
     * each delivery with its time and answer, and the payment, order and user it is about.
     */
    Optional<Page> page(long inboxId) {
        record Received(Event event, String payload) {
        }
        return reads.one("SELECT " + Event.COLUMNS + ", payload::text AS payload"
                        + " FROM webhook_inbox WHERE id = ?",
                row -> new Received(Event.of(row), shown(row.getString("payload"))), inboxId)
                .map(received -> new Page(received.event(), received.payload(),
                        signatureScheme(received.event().provider()), deliveries(inboxId),
                        about(received.event()).orElse(null), readBack(received.payload()),
                        audit.takenOf("webhook-event", String.valueOf(inboxId))));
    }

    private List<Delivery> deliveries(long inboxId) {
        return reads.list("""
                        SELECT delivered_at, outcome, http_status FROM webhook_deliveries
                         WHERE inbox_id = ? ORDER BY delivered_at, id LIMIT 200""",
                row -> new Delivery(instant(row, "delivered_at"), row.getString("outcome"), row.getInt("http_status")),
                inboxId);
    }

    private Optional<About> about(Event event) {
        if (event.providerPaymentId() == null) {
            return Optional.empty();
        }
        return reads.one("""
                        SELECT payment_id, status, order_id, user_id, idempotency_record_id
                          FROM payments WHERE provider = ? AND provider_payment_id = ?""",
                row -> new About(row.getString("payment_id"), row.getString("status"), row.getString("order_id"),
                        row.getString("user_id"), (Long) row.getObject("idempotency_record_id")),
                event.provider(), event.providerPaymentId());
    }

    private ReadBack readBack(String payload) {
        JsonNode kept;
        try {
            kept = json.readTree(payload);
        } catch (IOException e) {
            return null;
        }
        if (kept == null || !kept.path("sourceAddress").isTextual()) {
            return null;
        }
        JsonNode payment = kept.path("readBack");
        JsonNode amount = payment.path("amount");
        return new ReadBack(kept.get("sourceAddress").asText(), payment.path("status").asText(null),
                amount.isObject() ? amount.path("value").asText() + " " + amount.path("currency").asText() : null,
                kept.path("readBackError").asText(null));
    }

    static String signatureScheme(String provider) {
        return switch (provider) {
            case "sandbox" -> "Standard Webhooks: HMAC-SHA256 over the webhook-id, webhook-timestamp and body, "
                    + "checked against the webhook-signature header with the sandbox's signing secret";
            case "stripe" -> "Stripe-Signature v1: HMAC-SHA256 over the timestamp and body with the endpoint's "
                    + "signing secret";
            case "yookassa" -> "none (YooKassa signs nothing): accepted only from onceguard.yookassa.notification-sources,"
                    + " then applied from the payment as YooKassa's API read it back, never from the notification";
            default -> "the " + provider + " adapter's signature check";
        };
    }

    /** The payload pretty-printed, every value under a secret-looking name replaced; unparseable text as it is. */
    String shown(String payload) {
        try {
            JsonNode tree = json.readTree(payload);
            SecretFields.hide(tree);
            return json.writerWithDefaultPrettyPrinter().writeValueAsString(tree);
        } catch (IOException e) {
            return payload;
        }
    }
}
