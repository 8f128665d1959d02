package dev.onceguard.idempotency;

import java.time.Instant;

/**
 * One operation, named by (user, operation, key), as the engine reads it. The row is created PROCESSING when the
 * operation starts and becomes COMPLETED (a result) or FAILED (a stored business refusal) together with its effects.
 *
 * @param response the stored answer; null while PROCESSING
 */
public record IdempotencyRecord(long id, String fingerprint, Status status, String recoveryPoint,
                                Instant leaseExpiresAt, StoredResponse response, Instant expiresAt) {

    public enum Status { PROCESSING, COMPLETED, FAILED }

    boolean isFinished() {
        return status != Status.PROCESSING;
    }
}
