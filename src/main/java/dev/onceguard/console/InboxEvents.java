package dev.onceguard.console;

import dev.onceguard.payment.provider.PaymentProvider;
import dev.onceguard.platform.Cause;
import dev.onceguard.platform.KeysetQuery;
import dev.onceguard.webhook.DeliveryOutcome;
import dev.onceguard.webhook.WebhookInbox;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Instance;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

import static dev.onceguard.platform.SqlRows.instant;

/** The webhook inbox for the console: events newest first, the last day's delivery summary, and "reprocess". */
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

    private final ConsoleReads reads;
    private final WebhookInbox inbox;
    private final Instance<PaymentProvider> adapters;

    public InboxEvents(ConsoleReads reads, WebhookInbox inbox, Instance<PaymentProvider> adapters) {
        this.reads = reads;
        this.inbox = inbox;
        this.adapters = adapters;
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
        for (String provider : providers()) {
            byProvider.put(provider, new TreeMap<>());
        }
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
        Set<String> names = new TreeSet<>();
        adapters.forEach(adapter -> names.add(adapter.name()));
        return names;
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
        String status = current.status();
        String explanation = current.explanation();
        if (outcome.isEmpty()) {
            return new ActionResult(AuditOutcome.ALREADY_RESOLVED, AdminNotice.WEBHOOK_ALREADY_RESOLVED,
                    "event is " + status + ", not FAILED, IGNORED or PENDING_MATCH");
        }
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
}
