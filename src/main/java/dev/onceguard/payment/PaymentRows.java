package dev.onceguard.payment;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.persistence.EntityManager;
import org.hibernate.query.NativeQuery;
import org.hibernate.type.StandardBasicTypes;

import java.math.BigDecimal;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Every statement on {@code payments} outside the state machine's moves ({@link PaymentStates}), as SQL in the
 * caller's transaction: no payment is a managed entity, so a move made with SQL is never hidden behind one already
 * loaded, and each read returns the row as the database has it at that moment.
 */
@ApplicationScoped
public class PaymentRows {

    private static final String COLUMNS = """
            payment_id, order_id, user_id, status, amount, currency, provider, provider_idempotency_key,
            provider_payment_id, payment_method_token, idempotency_record_id, created_at""";

    private final EntityManager em;

    public PaymentRows(EntityManager em) {
        this.em = em;
    }

    /** An attempt about to be inserted as CREATED, with the idempotency record of its operation. */
    record NewAttempt(String paymentId, String orderId, String userId, BigDecimal amount, String currency,
                      String provider, String providerIdempotencyKey, String paymentMethodToken, long recordId) {

        /** Without the payment method token, which no log line may carry. */
        @Override
        public String toString() {
            return "NewAttempt[" + paymentId + ", order=" + orderId + "]";
        }
    }

    /**
     * Inserts the attempt as CREATED, unless the order already has an unresolved one (CREATED, PENDING or UNKNOWN:
     * the partial unique index allows one per order).
     *
     * @return false when the order already had one
     */
    boolean insert(NewAttempt attempt, Instant now) {
        return em.createNativeQuery("""
                        INSERT INTO payments (payment_id, order_id, user_id, status, amount, currency, provider,
                            provider_idempotency_key, payment_method_token, idempotency_record_id, created_at, updated_at)
                        VALUES (:paymentId, :orderId, :userId, 'CREATED', :amount, :currency, :provider,
                            :providerKey, :token, :recordId, :now, :now)
                        ON CONFLICT (order_id) WHERE status IN ('CREATED', 'PENDING', 'UNKNOWN') DO NOTHING""")
                .setParameter("paymentId", attempt.paymentId())
                .setParameter("orderId", attempt.orderId())
                .setParameter("userId", attempt.userId())
                .setParameter("amount", attempt.amount())
                .setParameter("currency", attempt.currency())
                .setParameter("provider", attempt.provider())
                .setParameter("providerKey", attempt.providerIdempotencyKey())
                .setParameter("token", attempt.paymentMethodToken())
                .setParameter("recordId", attempt.recordId())
                .setParameter("now", now)
                .executeUpdate() == 1;
    }

    /** Stores the provider payment id of a payment that did not know it yet; false when it already knew one. */
    boolean learnProviderPaymentId(String paymentId, String providerPaymentId) {
        return em.createNativeQuery("""
                        UPDATE payments SET provider_payment_id = :providerPaymentId
                         WHERE payment_id = :paymentId AND provider_payment_id IS NULL""")
                .setParameter("providerPaymentId", providerPaymentId)
                .setParameter("paymentId", paymentId)
                .executeUpdate() == 1;
    }

    /** A payment that exists: one an idempotency record or an event names. */
    public Payment get(String paymentId) {
        return find(paymentId).orElseThrow(() -> new IllegalStateException("payment " + paymentId + " does not exist"));
    }

    public Optional<Payment> find(String paymentId) {
        return first("payment_id = :paymentId", Map.of("paymentId", paymentId));
    }

    public Optional<Payment> findOwned(String paymentId, String userId) {
        return first("payment_id = :paymentId AND user_id = :userId", Map.of("paymentId", paymentId, "userId", userId));
    }

    public Optional<Payment> findByProviderPayment(String provider, String providerPaymentId) {
        return first("provider = :provider AND provider_payment_id = :providerPaymentId",
                Map.of("provider", provider, "providerPaymentId", providerPaymentId));
    }

    public Optional<Payment> findByProviderKey(String provider, String providerIdempotencyKey) {
        return first("provider = :provider AND provider_idempotency_key = :key",
                Map.of("provider", provider, "key", providerIdempotencyKey));
    }

    public List<Payment> ofOrder(String orderId) {
        return list("order_id = :orderId ORDER BY created_at", Map.of("orderId", orderId));
    }

    /** PENDING attempts with a provider payment id that nothing has changed since {@code quietSince}, oldest first. */
    List<Payment> quietPending(Instant quietSince, int limit) {
        return list("status = 'PENDING' AND provider_payment_id IS NOT NULL AND updated_at <= :quietSince"
                + " ORDER BY updated_at LIMIT :limit", Map.of("quietSince", quietSince, "limit", limit));
    }

    /**
     * The idempotency records of attempts whose outcome onceguard does not know, oldest change first: UNKNOWN ones,
     * and CREATED ones whose record's lease has expired (the process died before it stored the provider's answer).
     */
    @SuppressWarnings("unchecked")
    List<Long> operationsOfUnknownOutcomes(Instant now, int limit) {
        return ((List<Number>) em.createNativeQuery("""
                        SELECT p.idempotency_record_id FROM payments p
                         WHERE p.idempotency_record_id IS NOT NULL
                           AND (p.status = 'UNKNOWN'
                                OR (p.status = 'CREATED' AND EXISTS (
                                    SELECT 1 FROM idempotency_records r
                                     WHERE r.id = p.idempotency_record_id AND r.status = 'PROCESSING'
                                       AND r.lease_expires_at <= :now)))
                         ORDER BY p.updated_at
                         LIMIT :limit""")
                .setParameter("now", now)
                .setParameter("limit", limit)
                .getResultList()).stream().map(Number::longValue).toList();
    }

    private Optional<Payment> first(String condition, Map<String, Object> parameters) {
        return list(condition, parameters).stream().findFirst();
    }

    @SuppressWarnings("unchecked")
    private List<Payment> list(String conditionAndOrder, Map<String, Object> parameters) {
        NativeQuery<Object[]> query = em.createNativeQuery("SELECT " + COLUMNS + " FROM payments WHERE "
                        + conditionAndOrder)
                .unwrap(NativeQuery.class)
                .addScalar("payment_id", StandardBasicTypes.STRING)
                .addScalar("order_id", StandardBasicTypes.STRING)
                .addScalar("user_id", StandardBasicTypes.STRING)
                .addScalar("status", StandardBasicTypes.STRING)
                .addScalar("amount", StandardBasicTypes.BIG_DECIMAL)
                .addScalar("currency", StandardBasicTypes.STRING)
                .addScalar("provider", StandardBasicTypes.STRING)
                .addScalar("provider_idempotency_key", StandardBasicTypes.STRING)
                .addScalar("provider_payment_id", StandardBasicTypes.STRING)
                .addScalar("payment_method_token", StandardBasicTypes.STRING)
                .addScalar("idempotency_record_id", StandardBasicTypes.LONG)
                .addScalar("created_at", StandardBasicTypes.INSTANT);
        parameters.forEach(query::setParameter);
        return query.getResultList().stream().map(PaymentRows::payment).toList();
    }

    private static Payment payment(Object[] row) {
        return new Payment((String) row[0], (String) row[1], (String) row[2], Payment.Status.valueOf((String) row[3]),
                (BigDecimal) row[4], (String) row[5], (String) row[6], (String) row[7], (String) row[8],
                (String) row[9], (Long) row[10], (Instant) row[11]);
    }
}
