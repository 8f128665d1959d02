package dev.onceguard.idempotency;

import dev.onceguard.platform.Cause;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * A store that lets a test make a race happen at an exact step: what another request or job does just before the
 * engine reads a scope, just after, or just before it takes a lease over, is done on the real store underneath.
 */
final class HookedStore implements IdempotencyStore {

    private final IdempotencyStore store;
    volatile Runnable beforeFindByScope = () -> { };
    volatile Runnable afterFindByScope = () -> { };
    volatile Runnable beforeTakeOver = () -> { };

    HookedStore(IdempotencyStore store) {
        this.store = store;
    }

    @Override
    public ClaimOutcome claim(IdempotentRequest<?> request, String recoveryPoint, Instant now, Instant leaseExpiresAt,
                              Instant expiresAt) {
        return store.claim(request, recoveryPoint, now, leaseExpiresAt, expiresAt);
    }

    @Override
    public ClaimOutcome claimFinished(IdempotentRequest<?> request, IdempotencyRecord.Status status,
                                      StoredResponse response, Instant now, Instant answeredAt, Instant expiresAt,
                                      ClaimWrites writes, Optional<ClaimPrecondition> precondition) {
        return store.claimFinished(request, status, response, now, answeredAt, expiresAt, writes, precondition);
    }

    @Override
    public Optional<IdempotencyRecord> findByScope(String userId, String operation, String key) {
        beforeFindByScope.run();
        Optional<IdempotencyRecord> found = store.findByScope(userId, operation, key);
        afterFindByScope.run();
        return found;
    }

    @Override
    public Optional<IdempotencyRecord> findById(long recordId) {
        return store.findById(recordId);
    }

    @Override
    public boolean complete(long recordId, IdempotencyRecord.Status status, StoredResponse response, Instant now,
                            Instant expiresAt, Applier applier, Cause finisher) {
        return store.complete(recordId, status, response, now, expiresAt, applier, finisher);
    }

    @Override
    public boolean checkpoint(long recordId, Checkpoint checkpoint, Instant leaseExpiresAt, Instant recoverAfter,
                              Applier applier, Cause caller, Integer answer, Instant now) {
        return store.checkpoint(recordId, checkpoint, leaseExpiresAt, recoverAfter, applier, caller, answer, now);
    }

    @Override
    public Optional<TakenOver> takeOver(long recordId, Instant now, Instant leaseExpiresAt) {
        beforeTakeOver.run();
        return store.takeOver(recordId, now, leaseExpiresAt);
    }

    @Override
    public boolean release(long recordId, String recoveryPoint, Instant now) {
        return store.release(recordId, recoveryPoint, now);
    }

    @Override
    public void recordConflict(long recordId, IdempotentRequest<?> request, String originalFingerprint, Instant now) {
        store.recordConflict(recordId, request, originalFingerprint, now);
    }

    @Override
    public List<Long> expiredLeases(Instant now, int limit) {
        return store.expiredLeases(now, limit);
    }

    @Override
    public int expire(Instant cutoff, int limit, List<RecordKeeper> keepers) {
        return store.expire(cutoff, limit, keepers);
    }
}
