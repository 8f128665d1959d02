package dev.onceguard.payment;

import dev.onceguard.idempotency.RecordKeeper;
import dev.onceguard.platform.SqlRows;
import jakarta.enterprise.context.ApplicationScoped;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * Every statement on {@code payments} outside the state machine's moves ({@link PaymentStates}), as plain JDBC in
 * the caller's transaction ({@link SqlRows}): no payment is a managed entity, so a move made with SQL is never hidden behind one already
 * loaded, and each read returns the row as the database has it at that moment.
 */
@ApplicationScoped
public class PaymentRows implements RecordKeeper {

    private static final String COLUMNS = """
            payment_id, order_id, user_id, status, amount, currency, provider, provider_idempotency_key,
            provider_payment_id, payment_method_token, idempotency_record_id, created_at""";

    private final SqlRows sql;

    public PaymentRows(SqlRows sql) {
        this.sql = sql;
    }

    /**
     * Inserts a new attempt (CREATED, with no provider payment yet, created now), unless the order already has an
     * unresolved one (CREATED, PENDING or UNKNOWN: the partial unique index allows one per order).
     *
     * @return false when the order already had one
     */
    boolean insert(Payment attempt) {
        return sql.update("""
                        INSERT INTO payments (payment_id, order_id, user_id, status, amount, currency, provider,
                            provider_idempotency_key, payment_method_token, idempotency_record_id, created_at, updated_at)
                        VALUES (?, ?, ?, 'CREATED', ?, ?, ?, ?, ?, ?, ?, ?)
                        ON CONFLICT (order_id) WHERE status IN ('CREATED', 'PENDING', 'UNKNOWN') DO NOTHING""",
                attempt.paymentId(), attempt.orderId(), attempt.userId(), attempt.amount(), attempt.currency(),
                attempt.provider(), attempt.providerIdempotencyKey(), attempt.paymentMethodToken(),
                attempt.idempotencyRecordId(), attempt.createdAt(), attempt.createdAt()) == 1;
    }

    /** Stores the provider payment id of a payment that did not know it yet; false when it already knew one. */
    boolean learnProviderPaymentId(String paymentId, String providerPaymentId) {
        return sql.update("UPDATE payments SET provider_payment_id = ? WHERE payment_id = ? AND provider_payment_id IS NULL",
                providerPaymentId, paymentId) == 1;
    }

    /** Keeps why the provider failed or canceled the payment (the console shows it), unless one is kept already. */
    void recordFailureReason(String paymentId, String failureReason) {
        sql.update("UPDATE payments SET failure_reason = ? WHERE payment_id = ? AND failure_reason IS NULL",
                failureReason, paymentId);
    }

    /** A payment that exists: one an idempotency record or an event names. */
    public Payment get(String paymentId) {
        return find(paymentId).orElseThrow(() -> new IllegalStateException("payment " + paymentId + " does not exist"));
    }

    public Optional<Payment> find(String paymentId) {
        return first("payment_id = ?", paymentId);
    }

    public Optional<Payment> findOwned(String paymentId, String userId) {
        return first("payment_id = ? AND user_id = ?", paymentId, userId);
    }

    public Optional<Payment> findByProviderPayment(String provider, String providerPaymentId) {
        return first("provider = ? AND provider_payment_id = ?", provider, providerPaymentId);
    }

    public Optional<Payment> findByProviderKey(String provider, String providerIdempotencyKey) {
        return first("provider = ? AND provider_idempotency_key = ?", provider, providerIdempotencyKey);
    }

    public List<Payment> ofOrder(String orderId) {
        return list("order_id = ? ORDER BY created_at", orderId);
    }

    /** PENDING attempts with a provider payment id that nothing has changed since {@code quietSince}, oldest first. */
    List<Payment> quietPending(Instant quietSince, int limit) {
        return list("status = 'PENDING' AND provider_payment_id IS NOT NULL AND updated_at <= ? ORDER BY updated_at LIMIT ?",
                quietSince, limit);
    }

    /** A payment's record is kept past its expiry while the payment is not final. */
    @Override
    public String resourceType() {
        return PaymentService.RESOURCE_TYPE;
    }

    @Override
    public String unfinishedResources() {
        return "SELECT payment_id FROM payments WHERE status IN ('CREATED', 'PENDING', 'UNKNOWN')";
    }

    private Optional<Payment> first(String condition, Object... parameters) {
        return list(condition, parameters).stream().findFirst();
    }

    private List<Payment> list(String conditionAndOrder, Object... parameters) {
        return sql.list("SELECT " + COLUMNS + " FROM payments WHERE " + conditionAndOrder, PaymentRows::payment,
                parameters);
    }

    private static Payment payment(ResultSet row) throws SQLException {
        return new Payment(row.getString("payment_id"), row.getString("order_id"), row.getString("user_id"),
                Payment.Status.valueOf(row.getString("status")), row.getBigDecimal("amount"), row.getString("currency"),
                row.getString("provider"), row.getString("provider_idempotency_key"),
                row.getString("provider_payment_id"), row.getString("payment_method_token"),
                row.getObject("idempotency_record_id", Long.class), SqlRows.instant(row, "created_at"));
    }
}
