package dev.onceguard.console;

import dev.onceguard.platform.Cause;

import java.math.BigDecimal;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;

import static dev.onceguard.platform.SqlRows.instant;

/**
 * Everything one idempotency record led to, for {@code /console/operations/{id}}: the record and the requests that
 * met it, the order it created or paid for, that order's payment attempts, their webhook events and state
 * transitions, the order's outbox events and the effects they produced, with the verdict and a timeline of it all.
 * Payment method tokens are never read.
 */
public record OperationChain(KeyRecord record, RequestHistory history, Order order, List<Item> items,
                             List<Payment> payments, List<InboxEvents.Event> webhookEvents, List<Transition> transitions,
                             List<OutboxEvent> outboxEvents, List<Effect> effects, List<OperationRow> onSameOrder,
                             Verdict verdict, List<TimelineEntry> timeline) {

    public String href() {
        return ConsoleLinks.operation(record.id());
    }

    public String userHref() {
        return ConsoleLinks.user(record.userId());
    }

    public String orderHref() {
        return order == null ? null : ConsoleLinks.order(order.orderId());
    }

    public record KeyRecord(long id, String key, String userId, String operation, String status, String fingerprint,
                            String recoveryPoint, Instant leaseExpiresAt, Integer responseStatus, String refusalCode,
                            String refusalTitle, String resourceType, String resourceId, String requestId,
                            String clientRequestId, int replayCount, Instant lastReplayedAt, Instant createdAt, Instant completedAt,
                            Instant expiresAt, RecordEnding ending) {

        public String statusClass() {
            return StatusBadges.idempotencyRecord(status, leaseExpiresAt);
        }
    }

    public record Order(String orderId, String userId, String status, BigDecimal total, String currency,
                        String requestId, Instant createdAt, Instant updatedAt) {
    }

    public record Item(String productId, String name, int quantity, BigDecimal unitPrice) {
    }

    /** A payment attempt, as an order's story and the payments list show it. */
    public record Payment(String paymentId, String orderId, String userId, String status, BigDecimal amount,
                          String currency, String provider, String providerIdempotencyKey, String providerPaymentId,
                          Long idempotencyRecordId, String failureReason, Instant createdAt, Instant updatedAt) {

        static final String SELECT = """
                SELECT payment_id, order_id, user_id, status, amount, currency, provider, provider_idempotency_key,
                       provider_payment_id, idempotency_record_id, failure_reason, created_at, updated_at
                  FROM payments""";

        static Payment of(ResultSet row) throws SQLException {
            return new Payment(row.getString("payment_id"), row.getString("order_id"), row.getString("user_id"),
                    row.getString("status"), row.getBigDecimal("amount"), row.getString("currency"),
                    row.getString("provider"), row.getString("provider_idempotency_key"),
                    row.getString("provider_payment_id"), (Long) row.getObject("idempotency_record_id"),
                    row.getString("failure_reason"), instant(row, "created_at"), instant(row, "updated_at"));
        }

        public String href() {
            return idempotencyRecordId == null ? ConsoleLinks.operationsOfOrder(orderId)
                    : ConsoleLinks.operation(idempotencyRecordId);
        }

        public String userHref() {
            return ConsoleLinks.user(userId);
        }

        public String statusClass() {
            return StatusBadges.payment(status);
        }
    }

    /**
     * One accepted state change and its cause ({@link dev.onceguard.platform.Cause}): {@code causeRef} names the
     * request, webhook event, job run or audit entry; {@code eventType} is the webhook event's type when known;
     * {@code admin} who acted and why, when an admin action caused it.
     */
    public record Transition(String subjectType, String subjectId, String fromStatus, String toStatus, String cause,
                             String causeRef, String eventType, Instant occurredAt, AdminAct admin) {

        public String causeText() {
            String ref = causeRef == null ? "" : " " + causeRef;
            return switch (cause) {
                case Cause.PROVIDER_ANSWER -> "UNKNOWN".equals(toStatus)
                        ? "no answer from the provider in time to request" + ref
                        : "the provider's answer to request" + ref;
                case Cause.WEBHOOK -> (eventType == null ? "webhook event" : eventType + " webhook, event") + ref;
                case Cause.RECONCILIATION -> "reconciliation, run" + ref;
                case Cause.LEASE_RECOVERY -> "lease recovery, run" + ref;
                case Cause.UNPAID_ORDER_EXPIRY -> "unpaid order expiry, run" + ref;
                case Cause.ADMIN -> "admin action, audit entry" + ref + (admin == null ? "" : ", " + admin.text());
                case Cause.FULFILMENT -> "fulfilment after outbox event" + ref;
                default -> cause + ref;
            };
        }

        /** The page about the cause: the job's runs, the audit log, the inbox, the outbox event (by search). */
        public String causeHref() {
            return switch (cause) {
                case Cause.WEBHOOK -> "/console/webhooks";
                case Cause.RECONCILIATION -> "/console/jobs?job=" + dev.onceguard.platform.Jobs.RECONCILIATION;
                case Cause.LEASE_RECOVERY -> "/console/jobs?job=" + dev.onceguard.platform.Jobs.LEASE_RECOVERY;
                case Cause.UNPAID_ORDER_EXPIRY -> "/console/jobs?job=" + dev.onceguard.platform.Jobs.UNPAID_ORDER_EXPIRY;
                case Cause.ADMIN -> causeRef == null ? "/console/audit" : "/console/audit/" + causeRef;
                case Cause.FULFILMENT -> ConsoleLinks.search("#" + causeRef);
                default -> null;
            };
        }
    }

    /** @param queuedAgain the latest admin "retry now" that queued it again, alone or in bulk; null when none did */
    public record OutboxEvent(long id, String eventType, String status, int attempts, String lastError,
                              Instant createdAt, Instant processedAt, AdminAct queuedAgain, Long queuedAgainAuditId) {

        public String statusClass() {
            return StatusBadges.outboxEvent(status, attempts);
        }
    }

    /** A license, a notification or a loyalty ledger entry made for the order. */
    public record Effect(String kind, String id, String detail, Instant createdAt) {
    }

    /** One line of the timeline; {@code href} (optional) leads to the page about it. */
    public record TimelineEntry(Instant at, String title, String detail, String href) {
    }
}
