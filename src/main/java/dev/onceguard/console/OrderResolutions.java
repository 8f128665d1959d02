package dev.onceguard.console;

import dev.onceguard.idempotency.IdempotencyRecordQueries;
import dev.onceguard.payment.refund.Refund;
import dev.onceguard.payment.refund.RefundRows;
import jakarta.enterprise.context.ApplicationScoped;
import org.eclipse.microprofile.config.inject.ConfigProperty;

import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.stream.Stream;

import static dev.onceguard.platform.SqlRows.instant;

/**
 * How an order's story was resolved after it was paid or left unpaid: its refunds (who asked, why, the provider's
 * answer), its cancellation, the effects taken back ({@code ORDER_REFUNDED} outbox events), the sentences the verdict
 * adds about them, and, for a same-cart pair charged twice, the later charge as the one to refund.
 */
@ApplicationScoped
public class OrderResolutions {

    static final String CONSOLE_REQUESTER = "console:";
    private static final String ORDER_REFUNDED = "ORDER_REFUNDED";

    public record RefundLine(String refundId, String paymentId, BigDecimal amount, String currency, String status,
                             String reason, String note, String requestedBy, String providerRefundId,
                             Instant createdAt) {

        /** Who asked: an admin in the console, or the API user whose token carried the refunds group. */
        public String askedBy() {
            return requestedBy.startsWith(CONSOLE_REQUESTER)
                    ? "console admin " + requestedBy.substring(CONSOLE_REQUESTER.length())
                    : "API user " + requestedBy;
        }

        public String statusClass() {
            return switch (status) {
                case "SUCCEEDED" -> "st-ok";
                case "FAILED" -> "st-bad";
                default -> "st-warn";
            };
        }

        public String reasonText() {
            return reason.toLowerCase(Locale.ROOT).replace('_', ' ');
        }

        public String refundPageHref() {
            return ConsoleRefundsResource.pageOf(paymentId);
        }
    }

    /** The order moved to CANCELED: by whom (its owner, through the API) and by which request. */
    public record Cancellation(String userId, String requestId, Instant at) {
    }

    /** An {@code ORDER_REFUNDED} event: the licence revoked, the loyalty points returned, a refund notification. */
    public record TakenBack(long outboxEventId, String status, Instant createdAt) {
    }

    /**
     * @param secondChargePaymentId the later of two charges for the same cart within the double-submission window,
     *                              while some of it is left to refund; null otherwise
     */
    public record Resolution(List<RefundLine> refunds, Cancellation cancellation, List<TakenBack> takenBack,
                             List<String> verdictLines, String secondChargePaymentId) {

        /** Calm once every refund has the provider's final word and succeeded; a warning otherwise. */
        public String verdictTone() {
            return refunds.stream().allMatch(refund -> refund.status().equals("SUCCEEDED")) ? "ok" : "warn";
        }

        public String secondChargeRefundHref() {
            return secondChargePaymentId == null ? null : ConsoleRefundsResource.duplicateRefundOf(secondChargePaymentId);
        }
    }

    private final ConsoleReads reads;
    private final IdempotencyRecordQueries records;
    private final RefundRows refunds;
    private final Duration window;

    public OrderResolutions(ConsoleReads reads, IdempotencyRecordQueries records, RefundRows refunds,
                            @ConfigProperty(name = "onceguard.console.double-submission-window") Duration window) {
        this.reads = reads;
        this.records = records;
        this.refunds = refunds;
        this.window = window;
    }

    /** The resolution of the order of {@code chain}; an empty one for an operation without an order. */
    public Resolution of(OperationChain chain) {
        if (chain.order() == null) {
            return new Resolution(List.of(), null, List.of(), List.of(), null);
        }
        String orderId = chain.order().orderId();
        List<RefundLine> lines = refunds.ofOrder(orderId).stream().map(OrderResolutions::line).toList();
        Cancellation cancellation = reads.one("""
                        SELECT cause_ref, occurred_at FROM state_transitions
                         WHERE subject_type = 'order' AND subject_id = ? AND to_status = 'CANCELED'""",
                row -> new Cancellation(chain.order().userId(), row.getString("cause_ref"), instant(row, "occurred_at")),
                orderId).orElse(null);
        List<TakenBack> takenBack = reads.list("""
                        SELECT id, status, created_at FROM outbox_events
                         WHERE aggregate_type = 'order' AND aggregate_id = ? AND event_type = ? ORDER BY id""",
                row -> new TakenBack(row.getLong("id"), row.getString("status"), instant(row, "created_at")),
                orderId, ORDER_REFUNDED);
        String[] sameCartOrders = Stream.concat(Stream.of(orderId), sameCartOrders(orderId).stream())
                .distinct().toArray(String[]::new);
        List<Charge> charges = sameCartOrders.length < 2 ? List.of() : reads.list("""
                        SELECT payment_id, order_id, amount - refund_reserved AS remaining FROM payments
                         WHERE order_id = ANY(?) AND status = 'SUCCEEDED' ORDER BY created_at DESC, payment_id DESC""",
                row -> new Charge(row.getString("payment_id"), row.getString("order_id"),
                        row.getBigDecimal("remaining")), (Object) sameCartOrders);
        boolean chargedTwice = charges.stream().map(Charge::orderId).distinct().count() > 1;
        Charge second = chargedTwice ? charges.get(0) : null;
        return new Resolution(lines, cancellation, takenBack, verdictLines(lines, cancellation, second),
                second != null && second.remaining().signum() > 0 ? second.paymentId() : null);
    }

    /**
     * The orders created by the same user with the same cart under other keys within the double-submission window
     * of this one, through the same-cart index (user, fingerprint, created_at).
     */
    private List<String> sameCartOrders(String orderId) {
        Optional<Long> recordId = reads.one("SELECT idempotency_record_id FROM orders WHERE order_id = ?",
                row -> (Long) row.getObject(1), orderId);
        if (recordId.isEmpty()) {
            return List.of();
        }
        Long[] sameCart = records.sameCartWithin(recordId.get(), window.toMillis() / 1000.0).toArray(Long[]::new);
        return reads.list("SELECT order_id FROM orders WHERE idempotency_record_id = ANY(?)",
                row -> row.getString(1), (Object) sameCart);
    }

    private record Charge(String paymentId, String orderId, BigDecimal remaining) {
    }

    private static List<String> verdictLines(List<RefundLine> lines, Cancellation cancellation, Charge second) {
        List<String> verdict = new ArrayList<>();
        for (RefundLine refund : lines) {
            boolean ofSecondCharge = second != null && second.paymentId().equals(refund.paymentId());
            String what = ofSecondCharge ? "Charged twice; the second charge" : "Payment " + refund.paymentId();
            String by = " by " + refund.askedBy() + " on " + ConsoleFormat.utc(refund.createdAt()) + ", reason: "
                    + refund.reasonText() + (refund.note() == null ? "" : " (" + refund.note() + ")");
            verdict.add(switch (refund.status()) {
                case "SUCCEEDED" -> what + " refunded (" + refund.amount() + " " + refund.currency() + ")" + by + ".";
                case "FAILED" -> what + ": a refund of " + refund.amount() + " " + refund.currency()
                        + " failed at the provider; asked" + by + ".";
                default -> what + ": a refund of " + refund.amount() + " " + refund.currency() + " is "
                        + refund.status() + ", the provider's answer awaited; asked" + by + ".";
            });
        }
        if (cancellation != null) {
            verdict.add("Canceled by its owner " + cancellation.userId() + " on " + ConsoleFormat.utc(cancellation.at())
                    + "; its stock returned.");
        }
        return List.copyOf(verdict);
    }

    static RefundLine line(Refund refund) {
        return new RefundLine(refund.refundId(), refund.paymentId(), refund.amount(), refund.currency(),
                refund.status().name(), refund.reason().name(), refund.note(), refund.requestedBy(),
                refund.providerRefundId(), refund.createdAt());
    }
}
