package dev.onceguard.console;

import dev.onceguard.platform.KeysetQuery;
import jakarta.enterprise.context.ApplicationScoped;

import java.math.BigDecimal;
import java.time.Instant;
import java.util.Optional;
import java.util.Set;

import static dev.onceguard.platform.SqlRows.instant;

/**
 * {@code /console/payments}: payment attempts of one status, longest unchanged first, such as the UNKNOWN payments
 * the overview counts. Keyset pages by (updated_at, payment_id); the unresolved statuses read the partial index of
 * unresolved payments.
 */
@ApplicationScoped
public class PaymentLists {

    /** The unresolved statuses only: the partial index of unresolved payments keeps their pages cheap. */
    static final Set<String> STATUSES = Set.of("CREATED", "PENDING", "UNKNOWN");

    public record Row(String paymentId, String orderId, String userId, String status, BigDecimal amount,
                      String currency, String provider, String providerPaymentId, String providerKey, Long recordId,
                      Instant createdAt, Instant updatedAt) {

        public String href() {
            return recordId == null ? ConsoleLinks.operationsOfOrder(orderId) : ConsoleLinks.operation(recordId);
        }

        public String userHref() {
            return ConsoleLinks.user(userId);
        }

        public String statusClass() {
            return StatusBadges.payment(status);
        }
    }

    private final ConsoleReads reads;

    public PaymentLists(ConsoleReads reads) {
        this.reads = reads;
    }

    static String status(String text) {
        String status = text == null || text.isBlank() ? "UNKNOWN" : text.strip();
        if (!STATUSES.contains(status)) {
            throw ConsoleRequestRejected.badRequest("The status must be one of " + String.join(", ",
                    STATUSES.stream().sorted().toList()) + ".");
        }
        return status;
    }

    KeysetPage<Row> page(String status, Optional<Cursor> after) {
        KeysetQuery query = KeysetQuery.oldestFirst("""
                SELECT payment_id, order_id, user_id, status, amount, currency, provider, provider_payment_id,
                       provider_idempotency_key, idempotency_record_id, created_at, updated_at
                  FROM payments""", "updated_at", "payment_id", KeysetPage.SIZE)
                // the constant list lets a generic plan prove the partial index applies; the status itself is bound
                .where("status IN ('CREATED', 'PENDING', 'UNKNOWN') AND status = ?", status);
        after.ifPresent(cursor -> query.after(cursor.at(), cursor.id()));
        return reads.page(query, row -> new Row(row.getString("payment_id"), row.getString("order_id"),
                row.getString("user_id"), row.getString("status"), row.getBigDecimal("amount"),
                row.getString("currency"), row.getString("provider"), row.getString("provider_payment_id"),
                row.getString("provider_idempotency_key"), (Long) row.getObject("idempotency_record_id"),
                instant(row, "created_at"), instant(row, "updated_at")), row -> new Cursor(row.updatedAt(), row.paymentId()));
    }

    long count(String status) {
        return reads.number("SELECT count(*) FROM payments WHERE status = ?", status);
    }
}
