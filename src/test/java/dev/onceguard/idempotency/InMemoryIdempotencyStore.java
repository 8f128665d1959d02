package dev.onceguard.idempotency;

import dev.onceguard.platform.Cause;
import jakarta.transaction.Status;
import jakarta.transaction.Synchronization;
import jakarta.transaction.TransactionSynchronizationRegistry;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

/**
 * The engine's records in memory, for the engine's tests: each method is one atomic step under the store's lock, and a
 * change made inside a transaction is undone when that transaction rolls back, as PostgreSQL would. A claim's
 * {@link ClaimWrites} and {@link ClaimPrecondition} are SQL, which only the PostgreSQL store runs: this store refuses
 * them. A {@link RecordKeeper}'s unfinished resources are read through {@code unfinishedResources}.
 *
 * <p>Ids start far above any id PostgreSQL hands out in a test run, so that the request log, which writes to
 * PostgreSQL, finds no record of this store's there and skips its rows.
 */
final class InMemoryIdempotencyStore implements IdempotencyStore {

    private record Scope(String userId, String operation, String key) {
    }

    private record Row(long id, Scope scope, String fingerprint, IdempotencyRecord.Status status, Checkpoint checkpoint,
                       Instant leaseExpiresAt, Instant recoverAfter, StoredResponse response, Instant expiresAt,
                       String finishedBy) {

        IdempotencyRecord record() {
            return new IdempotencyRecord(id, fingerprint, status, checkpoint.recoveryPoint(), leaseExpiresAt, response,
                    expiresAt);
        }

        boolean processing() {
            return status == IdempotencyRecord.Status.PROCESSING;
        }
    }

    /** A key reused with another payload, as the store keeps it. */
    record Conflict(long recordId, String originalFingerprint, String conflictingFingerprint) {
    }

    private final Map<Long, Row> rows = new HashMap<>();
    private final Map<Scope, Long> scopes = new HashMap<>();
    private final List<Conflict> conflicts = new ArrayList<>();
    private final TransactionSynchronizationRegistry transactions;
    private final Function<RecordKeeper, Set<String>> unfinishedResources;
    private long lastId = 1_000_000_000_000_000L;

    InMemoryIdempotencyStore(TransactionSynchronizationRegistry transactions,
                             Function<RecordKeeper, Set<String>> unfinishedResources) {
        this.transactions = transactions;
        this.unfinishedResources = unfinishedResources;
    }

    @Override
    public synchronized ClaimOutcome claim(IdempotentRequest<?> request, String recoveryPoint, Instant now,
                                           Instant leaseExpiresAt, Instant expiresAt) {
        return insert(request, IdempotencyRecord.Status.PROCESSING, new Checkpoint(recoveryPoint, null, null),
                leaseExpiresAt, null, expiresAt, null);
    }

    @Override
    public synchronized ClaimOutcome claimFinished(IdempotentRequest<?> request, IdempotencyRecord.Status status,
                                                   StoredResponse response, Instant now, Instant answeredAt,
                                                   Instant expiresAt, ClaimWrites writes,
                                                   Optional<ClaimPrecondition> precondition) {
        if (!writes.isEmpty() || precondition.isPresent()) {
            throw new UnsupportedOperationException("claim writes and preconditions are SQL, which only PostgreSQL runs");
        }
        return insert(request, status, new Checkpoint("finished", response.resourceType(), response.resourceId()),
                null, response, expiresAt, "request");
    }

    private ClaimOutcome insert(IdempotentRequest<?> request, IdempotencyRecord.Status status, Checkpoint checkpoint,
                                Instant lease, StoredResponse response, Instant expiresAt, String finishedBy) {
        Scope scope = new Scope(request.userId(), request.operation(), request.key().value());
        if (scopes.containsKey(scope)) {
            return new ScopeTaken();
        }
        Row row = new Row(++lastId, scope, request.fingerprint(), status, checkpoint, lease, null, response, expiresAt,
                finishedBy);
        put(row);
        return new Inserted(row.id());
    }

    @Override
    public synchronized Optional<IdempotencyRecord> findByScope(String userId, String operation, String key) {
        return Optional.ofNullable(scopes.get(new Scope(userId, operation, key))).map(rows::get).map(Row::record);
    }

    @Override
    public synchronized Optional<IdempotencyRecord> findById(long recordId) {
        return Optional.ofNullable(rows.get(recordId)).map(Row::record);
    }

    @Override
    public synchronized boolean complete(long recordId, IdempotencyRecord.Status status, StoredResponse response,
                                         Instant now, Instant expiresAt, Applier applier, Cause finisher) {
        Row row = rows.get(recordId);
        if (!appliesTo(applier, row)) {
            return false;
        }
        put(new Row(row.id(), row.scope(), row.fingerprint(), status,
                new Checkpoint("finished", response.resourceType(), response.resourceId()), null, row.recoverAfter(),
                response, expiresAt, finisher.kind()));
        return true;
    }

    @Override
    public synchronized boolean checkpoint(long recordId, Checkpoint checkpoint, Instant leaseExpiresAt,
                                           Instant recoverAfter, Applier applier, Cause caller, Integer answer,
                                           Instant now) {
        Row row = rows.get(recordId);
        if (!appliesTo(applier, row)) {
            return false;
        }
        put(new Row(row.id(), row.scope(), row.fingerprint(), row.status(), checkpoint,
                leaseExpiresAt == null ? row.leaseExpiresAt() : leaseExpiresAt,
                recoverAfter == null ? row.recoverAfter() : recoverAfter, null, row.expiresAt(), null));
        return true;
    }

    private static boolean appliesTo(Applier applier, Row row) {
        if (row == null || !row.processing()) {
            return false;
        }
        return applier instanceof Holder holder ? row.leaseExpiresAt().equals(holder.lease())
                : !row.leaseExpiresAt().isAfter(((Outsider) applier).now());
    }

    @Override
    public synchronized Optional<TakenOver> takeOver(long recordId, Instant now, Instant leaseExpiresAt) {
        Row row = rows.get(recordId);
        if (row == null || !row.processing() || row.leaseExpiresAt().isAfter(now)) {
            return Optional.empty();
        }
        put(new Row(row.id(), row.scope(), row.fingerprint(), row.status(), row.checkpoint(), leaseExpiresAt,
                row.recoverAfter(), null, row.expiresAt(), null));
        return Optional.of(new TakenOver(row.scope().operation(), row.checkpoint(), leaseExpiresAt));
    }

    @Override
    public synchronized boolean release(long recordId, String recoveryPoint, Instant now) {
        Row row = rows.get(recordId);
        if (row == null || !row.processing() || !row.checkpoint().recoveryPoint().equals(recoveryPoint)
                || row.leaseExpiresAt().isAfter(now)) {
            return false;
        }
        remove(row);
        return true;
    }

    @Override
    public synchronized void recordConflict(long recordId, IdempotentRequest<?> request, String originalFingerprint,
                                            Instant now) {
        Conflict conflict = new Conflict(recordId, originalFingerprint, request.fingerprint());
        conflicts.add(conflict);
        onRollback(() -> conflicts.remove(conflict));
    }

    @Override
    public synchronized List<Long> expiredLeases(Instant now, int limit) {
        return rows.values().stream()
                .filter(row -> row.processing() && !row.leaseExpiresAt().isAfter(now)
                        && (row.recoverAfter() == null || !row.recoverAfter().isAfter(now)))
                .sorted(Comparator.comparing(Row::leaseExpiresAt))
                .limit(limit)
                .map(Row::id)
                .toList();
    }

    @Override
    public synchronized int expire(Instant cutoff, int limit, List<RecordKeeper> keepers) {
        Map<String, Set<String>> kept = new HashMap<>();
        keepers.forEach(keeper -> kept.put(keeper.resourceType(), unfinishedResources.apply(keeper)));
        List<Row> expired = rows.values().stream()
                .filter(row -> !row.processing() && row.expiresAt().isBefore(cutoff))
                .filter(row -> !kept.getOrDefault(row.checkpoint().resourceType(), Set.of())
                        .contains(row.checkpoint().resourceId()))
                .sorted(Comparator.comparing(Row::expiresAt))
                .limit(limit)
                .toList();
        expired.forEach(this::remove);
        return expired.size();
    }

    /** The conflicts recorded against {@code recordId}. */
    synchronized List<Conflict> conflictsOf(long recordId) {
        return conflicts.stream().filter(conflict -> conflict.recordId() == recordId).toList();
    }

    /** Deletes a record as retention or an admin would, whatever its state. */
    synchronized void delete(long recordId) {
        Optional.ofNullable(rows.get(recordId)).ifPresent(this::remove);
    }

    private void put(Row row) {
        Row before = rows.put(row.id(), row);
        scopes.put(row.scope(), row.id());
        onRollback(() -> {
            if (before == null) {
                rows.remove(row.id());
                scopes.remove(row.scope());
            } else {
                rows.put(before.id(), before);
            }
        });
    }

    private void remove(Row row) {
        rows.remove(row.id());
        scopes.remove(row.scope());
        onRollback(() -> {
            rows.put(row.id(), row);
            scopes.put(row.scope(), row.id());
        });
    }

    /** Inside a transaction, {@code undo} runs if it rolls back; outside one, each step stands on its own. */
    private void onRollback(Runnable undo) {
        if (transactions.getTransactionKey() == null) {
            return;
        }
        @SuppressWarnings("unchecked")
        List<Runnable> undos = (List<Runnable>) transactions.getResource(this);
        if (undos == null) {
            List<Runnable> registered = new ArrayList<>();
            transactions.putResource(this, registered);
            transactions.registerInterposedSynchronization(new Synchronization() {
                @Override
                public void beforeCompletion() {
                }

                @Override
                public void afterCompletion(int status) {
                    if (status != Status.STATUS_COMMITTED) {
                        synchronized (InMemoryIdempotencyStore.this) {
                            for (int i = registered.size() - 1; i >= 0; i--) {
                                registered.get(i).run();
                            }
                        }
                    }
                }
            });
            undos = registered;
        }
        undos.add(undo);
    }
}
