package dev.onceguard.idempotency;

import io.quarkus.hibernate.orm.panache.PanacheEntityBase;
import jakarta.persistence.Entity;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

import java.time.Instant;

/** Evidence of a key reused with another payload: who, when, which key, both fingerprints. */
@Entity
@Table(name = "idempotency_conflicts")
public class IdempotencyConflict extends PanacheEntityBase {

    @Id
    @GeneratedValue(strategy = GenerationType.IDENTITY)
    public Long id;
    public Long recordId;
    public String userId;
    public String operation;
    public String idempotencyKey;
    public String originalFingerprint;
    public String conflictingFingerprint;
    public String requestId;
    public Instant createdAt;
}
