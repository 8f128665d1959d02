package dev.onceguard.console;

import dev.onceguard.idempotency.IdempotencyRecordQueries;
import jakarta.enterprise.context.ApplicationScoped;
import org.eclipse.microprofile.config.inject.ConfigProperty;

import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.stream.Collectors;

import static dev.onceguard.platform.SqlRows.instant;

/**
 * "Was I charged twice?": the charges (SUCCEEDED payments) of one user in a period, each with the intent (the
 * create-order record) it paid for, the totals per currency, and the charges whose intents have the same cart
 * within {@code onceguard.console.double-submission-window} of each other marked as possible double submissions.
 */
@ApplicationScoped
public class CustomerCharges {

    static final int MAX_SHOWN = 200;
    static final Duration AROUND_AN_INTENT = Duration.ofDays(1);

    /** One charge; {@code intentId} is the create-order record, {@code paymentRecordId} the payment's own. */
    public record Charge(String paymentId, String orderId, BigDecimal amount, String currency, String provider,
                         String providerPaymentId, Instant chargedAt, Long intentId, String intentKey,
                         String fingerprint, Long paymentRecordId, List<SameCart> sameCartAs) {

        public String href() {
            if (intentId != null) {
                return ConsoleLinks.operation(intentId);
            }
            return paymentRecordId == null ? ConsoleLinks.order(orderId) : ConsoleLinks.operation(paymentRecordId);
        }

        public boolean possibleDoubleSubmission() {
            return !sameCartAs.isEmpty();
        }

        public String orderHref() {
            return ConsoleLinks.order(orderId);
        }

        /** Whether another charge of the same cart came first, so that this one is the charge to refund. */
        public boolean secondOfSameCart() {
            return sameCartAs.stream().anyMatch(other -> other.chargedAt().isBefore(chargedAt)
                    || other.chargedAt().equals(chargedAt) && other.paymentId().compareTo(paymentId) < 0);
        }

        /** The refund form prepared for this charge as a duplicate: everything left of it, reason DUPLICATE. */
        public String duplicateRefundHref() {
            return ConsoleRefundsResource.duplicateRefundOf(paymentId);
        }
    }

    /** Another charge of the same cart within the window: its payment and the order it paid for. */
    public record SameCart(String paymentId, String orderId, Instant chargedAt) {

        public String orderHref() {
            return ConsoleLinks.order(orderId);
        }
    }

    public record Total(String currency, long charges, BigDecimal amount) {
    }

    public record Period(Instant from, Instant to, String fromText, String toText) {
    }

    public record Charges(Period period, List<Charge> charges, List<Total> totals, boolean capped, String window) {

        /** Pairs of charges of the same cart within the window, each pair counted once. */
        public long doubleSubmissions() {
            return charges.stream().mapToLong(charge -> charge.sameCartAs().size()).sum() / 2;
        }
    }

    /** The other charges of a user around one intent, and the customer view that lists them. */
    public record Around(long thisIntent, long others, String href, Instant from, Instant to) {

        public String thisIntentText() {
            return Verdict.capitalized(Verdict.charges(thisIntent));
        }
    }

    private final ConsoleReads reads;
    private final IdempotencyRecordQueries records;
    private final Duration window;

    public CustomerCharges(ConsoleReads reads, IdempotencyRecordQueries records,
                           @ConfigProperty(name = "onceguard.console.double-submission-window") Duration window) {
        this.reads = reads;
        this.records = records;
        this.window = window;
    }

    /** The period asked for; the last 30 days when none is. */
    static Period period(String from, String to) {
        Instant end = parse("to", to, Instant.now());
        Instant start = parse("from", from, end.minus(Duration.ofDays(30)));
        if (!start.isBefore(end)) {
            throw ConsoleRequestRejected.badRequest("The period's start must be before its end.");
        }
        return new Period(start, end, OperationFilter.FILTER_TIME.format(start),
                OperationFilter.FILTER_TIME.format(end));
    }

    private static Instant parse(String name, String text, Instant otherwise) {
        return text == null || text.isBlank() ? otherwise : OperationFilter.filterTime(name, text);
    }

    Charges of(String userId, Period period) {
        List<Charge> charged = reads.list("""
                        SELECT p.payment_id, p.order_id, p.amount, p.currency, p.provider, p.provider_payment_id,
                               p.created_at, p.idempotency_record_id, o.idempotency_record_id AS order_record_id
                          FROM payments p LEFT JOIN orders o ON o.order_id = p.order_id
                         WHERE p.user_id = ? AND p.status = 'SUCCEEDED' AND p.created_at >= ? AND p.created_at < ?
                         ORDER BY p.created_at, p.payment_id
                         LIMIT ?""",
                row -> new Charge(row.getString("payment_id"), row.getString("order_id"), row.getBigDecimal("amount"),
                        row.getString("currency"), row.getString("provider"), row.getString("provider_payment_id"),
                        instant(row, "created_at"), (Long) row.getObject("order_record_id"), null, null,
                        (Long) row.getObject("idempotency_record_id"), List.of()),
                userId, period.from(), period.to(), MAX_SHOWN + 1);
        List<Charge> read = withIntents(charged);
        boolean capped = read.size() > MAX_SHOWN;
        List<Charge> charges = markSameCart(capped ? read.subList(0, MAX_SHOWN) : read);
        Map<String, Total> totals = new TreeMap<>();
        charges.forEach(charge -> totals.merge(charge.currency(), new Total(charge.currency(), 1, charge.amount()),
                (a, b) -> new Total(a.currency(), a.charges() + b.charges(), a.amount().add(b.amount()))));
        return new Charges(period, charges, List.copyOf(totals.values()), capped, Verdict.span(window));
    }

    /** Each charge with its order's record (its intent: key and cart), none when that record is gone. */
    private List<Charge> withIntents(List<Charge> charges) {
        record Intent(long id, String key, String fingerprint) {
        }
        Map<Long, Intent> intents = records.keysAndFingerprints(
                        charges.stream().map(Charge::intentId).filter(Objects::nonNull).toArray(Long[]::new),
                        row -> new Intent(row.getLong("id"), row.getString("idempotency_key"), row.getString("fingerprint")))
                .stream().collect(Collectors.toMap(Intent::id, intent -> intent));
        return charges.stream().map(charge -> {
            Intent intent = charge.intentId() == null ? null : intents.get(charge.intentId());
            return new Charge(charge.paymentId(), charge.orderId(), charge.amount(), charge.currency(), charge.provider(),
                    charge.providerPaymentId(), charge.chargedAt(), intent == null ? null : intent.id(),
                    intent == null ? null : intent.key(), intent == null ? null : intent.fingerprint(),
                    charge.paymentRecordId(), charge.sameCartAs());
        }).toList();
    }

    /** Each charge with the other charges whose intent has its cart and was charged within the window of it. */
    private List<Charge> markSameCart(List<Charge> charges) {
        return charges.stream().map(charge -> new Charge(charge.paymentId(), charge.orderId(), charge.amount(),
                charge.currency(), charge.provider(), charge.providerPaymentId(), charge.chargedAt(), charge.intentId(),
                charge.intentKey(), charge.fingerprint(), charge.paymentRecordId(), charges.stream()
                        .filter(other -> other != charge && charge.fingerprint() != null
                                && charge.fingerprint().equals(other.fingerprint())
                                && Duration.between(charge.chargedAt(), other.chargedAt()).abs().compareTo(window) <= 0)
                        .map(other -> new SameCart(other.paymentId(), other.orderId(), other.chargedAt())).toList()))
                .toList();
    }

    /** The user's charges within a day of {@code at}, other than those of {@code orderId}. */
    Around around(String userId, Instant at, String orderId) {
        Instant from = at.minus(AROUND_AN_INTENT);
        Instant to = at.plus(AROUND_AN_INTENT);
        long others = reads.number("""
                SELECT count(*) FROM payments
                 WHERE user_id = ? AND status = 'SUCCEEDED' AND created_at >= ? AND created_at < ?
                   AND order_id IS DISTINCT FROM ?""", userId, from, to, orderId);
        long thisIntent = orderId == null ? 0
                : reads.number("SELECT count(*) FROM payments WHERE order_id = ? AND status = 'SUCCEEDED'", orderId);
        return new Around(thisIntent, others, ConsoleLinks.user(userId) + "?from=" + from + "&to=" + to + "#charges", from, to);
    }
}
