package dev.onceguard.console;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.onceguard.webhook.SecretFields;
import jakarta.enterprise.context.ApplicationScoped;

import java.io.IOException;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

import static dev.onceguard.platform.SqlRows.instant;

/**
 * {@code /console/webhooks/{id}}: one inbox event as it was received (any value whose name says it is a secret or a
 * token shown as {@value #HIDDEN}), the signature scheme that authenticated it (for an unsigned notification: the
 * address it came from and what reading its object back through the provider's API answered), each delivery with its
 * time and answer, and the payment, order and user it is about.
 */
@ApplicationScoped
public class WebhookEventPage {

    static final String HIDDEN = SecretFields.HIDDEN;

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
    public record Page(InboxEvents.Event event, String payload, String signatureScheme, List<Delivery> deliveries,
                       About about, ReadBack readBack, List<AuditLog.Taken> adminActions) {

        /** Deliveries counted before each one was logged (events older than the delivery log). */
        public int unlogged() {
            return Math.max(0, event.deliveryCount() - deliveries.size());
        }
    }

    private final ConsoleReads reads;
    private final ObjectMapper json;
    private final AuditLog audit;

    public WebhookEventPage(ConsoleReads reads, ObjectMapper json, AuditLog audit) {
        this.reads = reads;
        this.json = json;
        this.audit = audit;
    }

    Optional<Page> load(long inboxId) {
        record Received(InboxEvents.Event event, String payload) {
        }
        return reads.one("SELECT " + InboxEvents.Event.COLUMNS + ", payload::text AS payload"
                        + " FROM webhook_inbox WHERE id = ?",
                row -> new Received(InboxEvents.Event.of(row), shown(row.getString("payload"))), inboxId)
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

    private Optional<About> about(InboxEvents.Event event) {
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
