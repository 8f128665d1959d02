package dev.onceguard.maintenance;

import io.agroal.api.AgroalDataSource;

import static dev.onceguard.Database.execute;

/** Bulk rows for the maintenance tests, written with SQL so that hundreds of thousands take seconds. */
final class Seeds {

    private Seeds() {
    }

    /** {@code count} finished create-order records of {@code userId} that expired an hour ago. */
    static void expiredRecords(AgroalDataSource db, String userId, int count) {
        execute(db, """
                INSERT INTO idempotency_records (user_id, operation, idempotency_key, fingerprint, status, recovery_point,
                    response_status, response_headers, response_body, request_id, created_at, completed_at, expires_at)
                SELECT ?, 'create-order', 'k-' || g, repeat('a', 64), 'COMPLETED', 'finished', 201,
                       '{"Content-Type":"application/json"}', '\\x7b7d'::bytea, 'seed', now() - interval '25 hours',
                       now() - interval '25 hours', now() - interval '1 hour'
                  FROM generate_series(1, ?) g""", userId, count);
    }

    /** A PROCESSING record at {@code recoveryPoint} whose lease expired a minute ago (or is live for a minute). */
    static void processingRecord(AgroalDataSource db, String userId, String operation, String key, String recoveryPoint,
                                 String paymentId, boolean leaseExpired) {
        processingRecord(db, userId, operation, key, "b".repeat(64), recoveryPoint, paymentId, leaseExpired);
    }

    static void processingRecord(AgroalDataSource db, String userId, String operation, String key, String fingerprint,
                                 String recoveryPoint, String paymentId, boolean leaseExpired) {
        execute(db, """
                INSERT INTO idempotency_records (user_id, operation, idempotency_key, fingerprint, status, recovery_point,
                    lease_expires_at, resource_type, resource_id, request_id, created_at, expires_at)
                VALUES (?, ?, ?, ?, 'PROCESSING', ?, now() + CAST(? AS interval), ?, ?, 'seed', now(),
                        now() + interval '24 hours')""",
                userId, operation, key, fingerprint, recoveryPoint, leaseExpired ? "-1 minute" : "1 minute",
                paymentId == null ? null : "payment", paymentId);
    }
}
