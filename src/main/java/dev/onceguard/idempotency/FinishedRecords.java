package dev.onceguard.idempotency;

import dev.onceguard.platform.RecentEntries;
import jakarta.enterprise.context.ApplicationScoped;

import java.time.Instant;
import java.util.Optional;

/**
 * Finished records this replica has read, by scope. A finished record never changes until retention deletes it
 * (after {@code expiresAt}), so an entry is good until then and a replay found here costs no database work. The latest
 * records are what is kept ({@link RecentEntries}): a client retries what it sent last. Each entry also notes the
 * digest of the last request bytes found to have the record's fingerprint, so that a retry of the same bytes is known
 * to have it without being parsed.
 */
@ApplicationScoped
class FinishedRecords {

    private record Scope(String userId, String operation, String key) {
    }

    private record Remembered(IdempotencyRecord record, String bytesDigest) {
    }

    private final RecentEntries<Scope, Remembered> cache;

    FinishedRecords(IdempotencyConfig config) {
        this.cache = new RecentEntries<>(config.finishedCacheSize());
    }

    /** The scope's finished record when it has the request's fingerprint; the request's bytes are noted as giving it. */
    Optional<IdempotencyRecord> findSame(IdempotentRequest<?> request, Instant now) {
        Scope scope = scopeOf(request);
        Remembered remembered = live(scope, now);
        if (remembered == null || !remembered.record().fingerprint().equals(request.fingerprint())) {
            return Optional.empty();
        }
        if (!remembered.bytesDigest().equals(request.bytesDigest())) {
            cache.put(scope, new Remembered(remembered.record(), request.bytesDigest()));
        }
        return Optional.of(remembered.record());
    }

    /** The fingerprint of a request of this scope whose bytes have this digest, when they are the ones last seen. */
    Optional<String> fingerprintOfBytes(String userId, String operation, IdempotencyKey key, String bytesDigest,
                                        Instant now) {
        Remembered remembered = live(new Scope(userId, operation, key.value()), now);
        return remembered == null || !remembered.bytesDigest().equals(bytesDigest) ? Optional.empty()
                : Optional.of(remembered.record().fingerprint());
    }

    void remember(IdempotentRequest<?> request, IdempotencyRecord record) {
        if (record.isFinished() && record.fingerprint().equals(request.fingerprint())) {
            cache.put(scopeOf(request), new Remembered(record, request.bytesDigest()));
        }
    }

    private Remembered live(Scope scope, Instant now) {
        Remembered remembered = cache.get(scope);
        if (remembered != null && !remembered.record().expiresAt().isAfter(now)) {
            cache.remove(scope);
            return null;
        }
        return remembered;
    }

    private static Scope scopeOf(IdempotentRequest<?> request) {
        return new Scope(request.userId(), request.operation(), request.key().value());
    }
}
