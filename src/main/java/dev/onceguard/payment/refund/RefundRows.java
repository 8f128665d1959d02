package dev.onceguard.payment.refund;

import dev.onceguard.platform.SqlRows;
import jakarta.enterprise.context.ApplicationScoped;

import java.math.BigDecimal;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * Every statement on {@code refunds}, and on the refund columns of {@code payments}, outside the state machine's
 * moves ({@link RefundStates}), as plain JDBC in the caller's transaction.
 */
@ApplicationScoped
public class RefundRows {

    private static final String COLUMNS = """
            refund_id, payment_id, order_id, requested_by, status, amount, currency, reason, note, provider,
            provider_idempotency_key, provider_refund_id, idempotency_record_id, created_at""";

    private final SqlRows sql;

    public RefundRows(SqlRows sql) {
        this.sql = sql;
    }

    /**
     * Reserves {@code amount} (or, when null, everything that remains) of a SUCCEEDED payment for a refund, in one
     * conditional UPDATE: the payment's row lock makes racing refunds take their turns, and each is checked against
     * what the ones before it left, so the reservations never add up to more than the payment.
     *
     * @return the amount reserved; empty when the payment is not SUCCEEDED or less than that remains
     */
    Optional<BigDecimal> reserve(String paymentId, BigDecimal amount) {
        return sql.list("""
                        UPDATE payments p SET refund_reserved = p.refund_reserved + wanted.amount
                          FROM (SELECT payment_id, COALESCE(CAST(? AS numeric), amount - refund_reserved) AS amount
                                  FROM payments WHERE payment_id = ? FOR UPDATE) wanted
                         WHERE p.payment_id = wanted.payment_id AND p.status = 'SUCCEEDED'
                           AND wanted.amount > 0 AND p.refund_reserved + wanted.amount <= p.amount
                        RETURNING wanted.amount""",
                row -> row.getBigDecimal(1), amount, paymentId).stream().findFirst();
    }

    /** Gives a failed refund's reservation back to its payment. */
    void release(String paymentId, BigDecimal amount) {
        sql.update("UPDATE payments SET refund_reserved = refund_reserved - ? WHERE payment_id = ?", amount, paymentId);
    }

    /**
     * Adds a succeeded refund to its payment's refunded amount.
     *
     * @return whether the payment is now refunded in full
     */
    boolean addRefunded(String paymentId, BigDecimal amount) {
        return sql.list("""
                        UPDATE payments SET refunded_amount = refunded_amount + ? WHERE payment_id = ?
                        RETURNING refunded_amount = amount""",
                row -> row.getBoolean(1), amount, paymentId).get(0);
    }

    /** What is left to refund of the payment: its amount minus the refunds that succeeded or are not final yet. */
    public BigDecimal remainingOf(String paymentId) {
        return sql.list("SELECT amount - refund_reserved FROM payments WHERE payment_id = ?",
                row -> row.getBigDecimal(1), paymentId).stream().findFirst().orElse(BigDecimal.ZERO);
    }

    /** What the payment has given back so far: the sum of its refunds that succeeded. */
    public BigDecimal refundedOf(String paymentId) {
        return sql.list("SELECT refunded_amount FROM payments WHERE payment_id = ?", row -> row.getBigDecimal(1),
                paymentId).stream().findFirst().orElse(BigDecimal.ZERO);
    }

    /** Inserts a new refund (PENDING, with no provider refund yet, created now). */
    void insert(Refund refund) {
        sql.update("""
                        INSERT INTO refunds (refund_id, payment_id, order_id, requested_by, status, amount, currency,
                            reason, note, provider, provider_idempotency_key, idempotency_record_id, created_at,
                            updated_at)
                        VALUES (?, ?, ?, ?, 'PENDING', ?, ?, ?, ?, ?, ?, ?, ?, ?)""",
                refund.refundId(), refund.paymentId(), refund.orderId(), refund.requestedBy(), refund.amount(),
                refund.currency(), refund.reason().name(), refund.note(), refund.provider(),
                refund.providerIdempotencyKey(), refund.idempotencyRecordId(), refund.createdAt(), refund.createdAt());
    }

    /** Stores the provider refund id of a refund that did not know it yet. */
    void learnProviderRefundId(String refundId, String providerRefundId) {
        sql.update("UPDATE refunds SET provider_refund_id = ? WHERE refund_id = ? AND provider_refund_id IS NULL",
                providerRefundId, refundId);
    }

    public Refund get(String refundId) {
        return find(refundId).orElseThrow(() -> new IllegalStateException("refund " + refundId + " does not exist"));
    }

    public Optional<Refund> find(String refundId) {
        return first("refund_id = ?", refundId);
    }

    Optional<Refund> findByProviderRefund(String provider, String providerRefundId) {
        return first("provider = ? AND provider_refund_id = ?", provider, providerRefundId);
    }

    public List<Refund> ofPayment(String paymentId) {
        return list("payment_id = ? ORDER BY created_at, refund_id", paymentId);
    }

    public List<Refund> ofOrder(String orderId) {
        return list("order_id = ? ORDER BY created_at, refund_id", orderId);
    }

    /** PENDING refunds the provider has and that nothing has changed since {@code quietSince}, oldest first. */
    public List<Refund> quietPending(Instant quietSince, int limit) {
        return list("status = 'PENDING' AND provider_refund_id IS NOT NULL AND updated_at <= ? ORDER BY updated_at"
                + " LIMIT ?", quietSince, limit);
    }

    private Optional<Refund> first(String condition, Object... parameters) {
        return list(condition, parameters).stream().findFirst();
    }

    private List<Refund> list(String conditionAndOrder, Object... parameters) {
        return sql.list("SELECT " + COLUMNS + " FROM refunds WHERE " + conditionAndOrder, RefundRows::refund,
                parameters);
    }

    private static Refund refund(ResultSet row) throws SQLException {
        return new Refund(row.getString("refund_id"), row.getString("payment_id"), row.getString("order_id"),
                row.getString("requested_by"), Refund.Status.valueOf(row.getString("status")),
                row.getBigDecimal("amount"), row.getString("currency"), Refund.Reason.valueOf(row.getString("reason")),
                row.getString("note"), row.getString("provider"), row.getString("provider_idempotency_key"),
                row.getString("provider_refund_id"), row.getObject("idempotency_record_id", Long.class),
                SqlRows.instant(row, "created_at"));
    }
}
