package dev.onceguard.idempotency;

import io.quarkus.hibernate.orm.panache.PanacheEntityBase;
import jakarta.persistence.Entity;
import jakarta.persistence.EnumType;
import jakarta.persistence.Enumerated;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import org.hibernate.annotations.JdbcTypeCode;
import org.hibernate.type.SqlTypes;

import java.time.Instant;
import java.util.Map;
import java.util.Optional;

/**
 * One operation, named by (user, operation, key). The row is created PROCESSING when the operation starts
 * and becomes COMPLETED (a result) or FAILED (a stored business refusal) together with its effects.
 */
@Entity
@Table(name = "idempotency_records")
public class IdempotencyRecord extends PanacheEntityBase {

    public enum Status { PROCESSING, COMPLETED, FAILED }

    @Id
    public Long id;
    public String userId;
    public String operation;
    public String idempotencyKey;
    public String fingerprint;
    @Enumerated(EnumType.STRING)
    public Status status;
    public String recoveryPoint;
    public Instant leaseExpiresAt;
    public Integer responseStatus;
    @JdbcTypeCode(SqlTypes.JSON)
    public Map<String, String> responseHeaders;
    public byte[] responseBody;
    public String resourceType;
    public String resourceId;
    public String requestId;
    public int replayCount;
    public Instant lastReplayedAt;
    public Instant createdAt;
    public Instant completedAt;
    public Instant expiresAt;

    public static Optional<IdempotencyRecord> findByScope(String userId, String operation, String key) {
        return find("userId = ?1 and operation = ?2 and idempotencyKey = ?3", userId, operation, key)
                .firstResultOptional();
    }

    public StoredResponse storedResponse() {
        return new StoredResponse(responseStatus, responseHeaders, responseBody, resourceType, resourceId);
    }

    public boolean isFinished() {
        return status != Status.PROCESSING;
    }
}
