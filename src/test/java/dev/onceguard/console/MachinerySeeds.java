package dev.onceguard.console;

import dev.onceguard.platform.Ids;
import io.agroal.api.AgroalDataSource;

import java.util.UUID;

import static dev.onceguard.Database.count;
import static dev.onceguard.Database.execute;

/** Rows for the console's machinery pages, written as SQL the way the engine, the inbox and the outbox leave them. */
final class MachinerySeeds {

    private static final Ids IDS = new Ids();

    /** The webhook test double of the webhook tests: signs nothing here, parses {"id","type","payment","status"}. */
    static final String TESTPAY = "testpay";

    record Payment(String orderId, String paymentId, String providerPaymentId) {
    }

    private MachinerySeeds() {
    }

    /**
     * A PROCESSING record at {@code recoveryPoint} whose lease expired a minute ago (or is live for a minute more); a
     * payment it names becomes the payment of this record, as phase (a) of the payment flow links them.
     */
    static long processing(AgroalDataSource db, String userId, String operation, String key, String recoveryPoint,
                           String paymentId, boolean leaseExpired) {
        execute(db, """
                INSERT INTO idempotency_records (user_id, operation, idempotency_key, fingerprint, status, recovery_point,
                    lease_expires_at, resource_type, resource_id, request_id, created_at, expires_at)
                VALUES (?, ?, ?, repeat('b', 64), 'PROCESSING', ?, now() + CAST(? AS interval), ?, ?, 'req-seed',
                        now() - interval '2 minutes', now() + interval '24 hours')""",
                userId, operation, key, recoveryPoint, leaseExpired ? "-1 minute" : "1 minute",
                paymentId == null ? null : "payment", paymentId);
        long id = count(db, "SELECT id FROM idempotency_records WHERE user_id = ? AND operation = ? AND idempotency_key = ?",
                userId, operation, key);
        if (paymentId != null) {
            execute(db, "UPDATE payments SET idempotency_record_id = ? WHERE payment_id = ?", id, paymentId);
        }
        return id;
    }

    /** An order awaiting payment and one attempt of it at {@code provider} in {@code status}. */
    static Payment payment(AgroalDataSource db, String provider, String status) {
        String orderId = IDS.next("ord");
        String paymentId = IDS.next("pay");
        String providerPaymentId = provider + "_" + UUID.randomUUID();
        String userId = "u-" + UUID.randomUUID();
        execute(db, """
                INSERT INTO orders (order_id, user_id, status, total, currency, request_id, created_at, updated_at)
                VALUES (?, ?, 'AWAITING_PAYMENT', 1500.00, 'RUB', 'req-seed', now(), now())""", orderId, userId);
        execute(db, """
                INSERT INTO payments (payment_id, order_id, user_id, status, amount, currency, provider,
                    provider_idempotency_key, provider_payment_id, payment_method_token, created_at, updated_at)
                VALUES (?, ?, ?, ?, 1500.00, 'RUB', ?, ?, ?, 'tok_success', now(), now())""",
                paymentId, orderId, userId, status, provider, "onceguard-" + paymentId, providerPaymentId);
        return new Payment(orderId, paymentId, providerPaymentId);
    }

    /** An inbox event whose application threw: kept FAILED with its payload, as the inbox keeps it. */
    static long failedWebhook(AgroalDataSource db, String providerPaymentId) {
        String eventId = "evt_" + UUID.randomUUID();
        String payload = "{\"id\":\"" + eventId + "\",\"type\":\"payment.succeeded\",\"payment\":\"" + providerPaymentId
                + "\",\"status\":\"SUCCEEDED\",\"amount\":\"1500.00\",\"currency\":\"RUB\"}";
        execute(db, """
                INSERT INTO webhook_inbox (provider, event_id, event_type, provider_payment_id, payload, status, last_error,
                    received_at, last_delivered_at)
                VALUES (?, ?, 'payment.succeeded', ?, CAST(? AS jsonb), 'FAILED', 'PessimisticLockException: 55P03',
                        now(), now())""", TESTPAY, eventId, providerPaymentId, payload);
        return count(db, "SELECT id FROM webhook_inbox WHERE provider = ? AND event_id = ?", TESTPAY, eventId);
    }

    /** An outbox event that used up its attempts; its type has no handler, so delivering it again only marks it done. */
    static long deadOutboxEvent(AgroalDataSource db) {
        String aggregateId = "agg-" + UUID.randomUUID();
        execute(db, """
                INSERT INTO outbox_events (event_type, aggregate_type, aggregate_id, payload, status, attempts,
                    next_attempt_at, last_error, created_at)
                VALUES ('CONSOLE_TEST', 'test', ?, '{}', 'DEAD', 8, now() - interval '1 hour', 'license: timeout',
                        now() - interval '2 hours')""", aggregateId);
        return count(db, "SELECT id FROM outbox_events WHERE aggregate_id = ?", aggregateId);
    }

    static void conflict(AgroalDataSource db, long recordId, String userId, String key) {
        execute(db, """
                INSERT INTO idempotency_conflicts (record_id, user_id, operation, idempotency_key, original_fingerprint,
                    conflicting_fingerprint, request_id, created_at)
                VALUES (?, ?, 'create-order', ?, repeat('a', 64), repeat('c', 64), 'req-conflict', now())""",
                recordId, userId, key);
    }
}
