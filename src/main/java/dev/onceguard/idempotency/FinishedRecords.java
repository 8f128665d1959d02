package dev.onceguard.idempotency;

import dev.onceguard.platform.RecentEntries;
import jakarta.enterprise.context.ApplicationScoped;

import java.time.Instant;
import java.util.Optional;

/**
 * Finished records this replica has read, by scope. A finished record never changes until retention deletes it
 * (after {@code expiresAt}), so an entry is good until then and a replay found here costs no database work. The latest
 * records are what is kept ({@link RecentEntries}): a client retries what it sent last.
 */
@ApplicationScoped
class FinishedRecords {

    private record Scope(String userId, String operation, String key) {
    }

    private final RecentEntries<Scope, IdempotencyRecord> cache;

    FinishedRecords(IdempotencyConfig config) {
        this.cache = new RecentEntries<>(config.finishedCacheSize());
    }

    Optional<IdempotencyRecord> find(IdempotentRequest<?> request, Instant now) {
        Scope scope = scopeOf(request);
        IdempotencyRecord record = cache.get(scope);
        if (record == null) {
            return Optional.empty();
        }
        if (!record.expiresAt().isAfter(now)) {
            cache.remove(scope);
            return Optional.empty();
        }
        return Optional.of(record);
    }

    void remember(IdempotentRequest<?> request, IdempotencyRecord record) {
        if (record.isFinished()) {
            cache.put(scopeOf(request), record);
        }
    }

    private static Scope scopeOf(IdempotentRequest<?> request) {
        return new Scope(request.userId(), request.operation(), request.key().value());
    }
}
