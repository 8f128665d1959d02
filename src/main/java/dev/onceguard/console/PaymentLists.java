package dev.onceguard.console;

import jakarta.enterprise.context.ApplicationScoped;

import java.math.BigDecimal;
import java.time.DateTimeException;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static dev.onceguard.console.ConsoleReads.instant;

/**
 * {@code /console/payments}: payment attempts of one status, longest unchanged first, such as the UNKNOWN payments
 * the overview counts. Keyset pages by (updated_at, payment_id); the unresolved statuses read the partial index of
 * unresolved payments.
 */
@ApplicationScoped
public class PaymentLists {

    static final int PAGE_SIZE = 50;
    /** The unresolved statuses only: the partial index of unresolved payments keeps their pages cheap. */
    static final Set<String> STATUSES = Set.of("CREATED", "PENDING", "UNKNOWN");
    private static final Pattern POSITION = Pattern.compile("(\\d{1,19})~([A-Za-z0-9_]{1,64})");

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

    /** A position in the list: after the payment {@code paymentId} last changed at {@code updatedAt}. */
    record Position(Instant updatedAt, String paymentId) {

        static Optional<Position> parse(String text) {
            if (text == null || text.isBlank()) {
                return Optional.empty();
            }
            Matcher matcher = POSITION.matcher(text.strip());
            if (!matcher.matches()) {
                throw ConsoleRequestRejected.badRequest("The page position “after” is not one this console wrote. "
                        + "Start again from the first page.");
            }
            try {
                return Optional.of(new Position(Instant.EPOCH.plus(Long.parseLong(matcher.group(1)), ChronoUnit.MICROS),
                        matcher.group(2)));
            } catch (ArithmeticException | NumberFormatException | DateTimeException e) {
                throw ConsoleRequestRejected.badRequest("The page position “after” is out of range.");
            }
        }

        String token() {
            return ChronoUnit.MICROS.between(Instant.EPOCH, updatedAt) + "~" + paymentId;
        }
    }

    public record Page(List<Row> rows, String next) {
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

    Page page(String status, Optional<Position> after) {
        List<Row> rows = read(status, after, PAGE_SIZE + 1);
        if (rows.size() <= PAGE_SIZE) {
            return new Page(rows, null);
        }
        Row last = rows.get(PAGE_SIZE - 1);
        return new Page(List.copyOf(rows.subList(0, PAGE_SIZE)), new Position(last.updatedAt(), last.paymentId()).token());
    }

    long count(String status) {
        return reads.number("SELECT count(*) FROM payments WHERE status = ?", status);
    }

    List<Row> read(String status, Optional<Position> after, int limit) {
        List<Object> parameters = new ArrayList<>();
        String position = "";
        if (after.isPresent()) {
            position = " AND (updated_at, payment_id) > (?, ?)";
            parameters.add(after.get().updatedAt());
            parameters.add(after.get().paymentId());
        }
        parameters.add(limit);
        return reads.list("""
                        SELECT payment_id, order_id, user_id, status, amount, currency, provider, provider_payment_id,
                               provider_idempotency_key, idempotency_record_id, created_at, updated_at
                          FROM payments WHERE status = '""" + status + "'" + position + " ORDER BY updated_at, payment_id LIMIT ?",
                row -> new Row(row.getString("payment_id"), row.getString("order_id"), row.getString("user_id"),
                        row.getString("status"), row.getBigDecimal("amount"), row.getString("currency"),
                        row.getString("provider"), row.getString("provider_payment_id"),
                        row.getString("provider_idempotency_key"), (Long) row.getObject("idempotency_record_id"),
                        instant(row, "created_at"), instant(row, "updated_at")),
                parameters.toArray());
    }
}
