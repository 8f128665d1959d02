package dev.onceguard.idempotency;

import dev.onceguard.platform.RequestIds;
import dev.onceguard.TestTokens;
import io.agroal.api.AgroalDataSource;
import io.quarkus.narayana.jta.QuarkusTransaction;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

import static dev.onceguard.Database.count;
import static dev.onceguard.Database.execute;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The engine's statements read the same few blocks per request whatever the table holds: measured (from
 * pg_statio, flushed per transaction) on an empty, never-analyzed table whose plans were cached while it was empty,
 * and again once one user has 100,000 records, without ANALYZE in between (autovacuum is off here).
 */
@QuarkusTest
class IdempotencyPlansTest {

    private static final int RECORDS_OF_ONE_USER = 100_000;

    @Inject
    AgroalDataSource db;

    @Inject
    PostgresIdempotencyStore records;

    @Test
    void theHotStatementsReadTheSameBlocksOnAnEmptyTableAndWithOneUsersHundredThousandRecords() {
        execute(db, "TRUNCATE idempotency_records CASCADE");
        assertThat(count(db, "SELECT reltuples::bigint FROM pg_class WHERE relname = 'idempotency_records'"))
                .as("never analyzed").isEqualTo(-1);
        String user = TestTokens.newUser();
        for (int i = 0; i < 20; i++) {
            int n = i;
            inTransaction(() -> records.findByScope(user, "create-order", "warm-up-" + n));
            newOrder(user, "warm-up-" + n);
        }
        long lookupWhenEmpty = fewestBlocks(() -> records.findByScope(user, "create-order", "absent"));
        long newOrderWhenEmpty = fewestBlocks(new Supplier<>() {
            int n;

            @Override
            public Object get() {
                return newOrder(user, "empty-" + n++);
            }
        });

        inTransaction(() -> {
            execute(db, """
                    INSERT INTO idempotency_records (user_id, operation, idempotency_key, fingerprint, status,
                        recovery_point, response_status, response_headers, response_body, request_id, created_at,
                        completed_at, expires_at)
                    SELECT ?, 'create-order', 'seeded-' || g, md5(g::text) || md5(g::text), 'COMPLETED', 'finished',
                           201, '{}', 'x', 'req-' || g, now(), now(), now() + interval '1 day'
                      FROM generate_series(1, ?) g""", user, RECORDS_OF_ONE_USER);
            return null;
        });
        long lookupWhenFull = fewestBlocks(() -> records.findByScope(user, "create-order", "seeded-50000"));
        long newOrderWhenFull = fewestBlocks(new Supplier<>() {
            int n;

            @Override
            public Object get() {
                return newOrder(user, "full-" + n++);
            }
        });
        long indexes = count(db, "SELECT count(*) FROM pg_indexes WHERE tablename = 'idempotency_records'");

        assertThat(inTransaction(() -> records.findByScope(user, "create-order", "seeded-50000"))).isPresent();
        assertThat(lookupWhenFull).as("scope lookup: the unique index grew by at most two levels, plus the row's page")
                .isLessThanOrEqualTo(lookupWhenEmpty + 3);
        assertThat(newOrderWhenFull).as("the claim: each index grew by at most two levels")
                .isLessThanOrEqualTo(newOrderWhenEmpty + 2 * (indexes + 1));
    }

    @Test
    void aLocalOperationsRecordIsInsertedFinishedAndNeverUpdated() {
        String user = TestTokens.newUser();
        long[] writes = inTransaction(() -> {
            long[] before = insertedAndUpdatedSoFar();
            claimFinished(user, "written-once");
            long[] after = insertedAndUpdatedSoFar();
            return new long[] {after[0] - before[0], after[1] - before[1]};
        });
        assertThat(writes).as("rows inserted, updated by the claim").containsExactly(1, 0);
        IdempotencyRecord record = inTransaction(() -> records.findByScope(user, "create-order", "written-once"))
                .orElseThrow();
        assertThat(record.isFinished()).isTrue();
        assertThat(record.response().status()).isEqualTo(201);
        assertThat(record.response().resourceId()).isEqualTo("ord-written-once");
    }

    /** This backend's counts of idempotency_records rows inserted and updated, its current transaction included. */
    private long[] insertedAndUpdatedSoFar() {
        return new long[] {
                count(db, "SELECT pg_stat_get_xact_tuples_inserted('idempotency_records'::regclass)"),
                count(db, "SELECT pg_stat_get_xact_tuples_updated('idempotency_records'::regclass)")};
    }

    private Object newOrder(String user, String key) {
        return inTransaction(() -> claimFinished(user, key));
    }

    /**
     * The engine's claim of a new order's record, as it runs it: with the answer already stored, in the form a claim
     * with a precondition takes (the order's writes and its catalog check aside).
     */
    private long claimFinished(String user, String key) {
        IdempotentRequest<Object> request = new IdempotentRequest<>("create-order", user,
                new IdempotencyKey(key), "f".repeat(64), "b".repeat(64), new RequestIds("req-" + key, null), () -> null, () -> "{}");
        Instant now = Instant.now();
        IdempotencyStore.ClaimOutcome claim = records.claimFinished(request, IdempotencyRecord.Status.COMPLETED,
                new StoredResponse(201, Map.of("Content-Type", "application/json"), new byte[213], "order", "ord-" + key),
                now, now, now.plusSeconds(3600), ClaimWrites.NONE,
                Optional.of(new ClaimPrecondition("true", List.of(), () -> { })));
        return ((IdempotencyStore.Inserted) claim).recordId();
    }

    /** Blocks of idempotency_records and its indexes read (from cache or disk) by one transaction; fewest of three. */
    private long fewestBlocks(Supplier<?> statements) {
        long fewest = Long.MAX_VALUE;
        for (int i = 0; i < 3; i++) {
            long before = blocksSoFar();
            inTransaction(statements);
            fewest = Math.min(fewest, blocksSoFar() - before);
        }
        return fewest;
    }

    /** Runs in one transaction whose statistics its backend reports as it commits. */
    private <T> T inTransaction(Supplier<T> statements) {
        return QuarkusTransaction.requiringNew().call(() -> {
            try (Connection connection = db.getConnection(); Statement flush = connection.createStatement()) {
                flush.execute("SELECT pg_stat_force_next_flush()");
            }
            return statements.get();
        });
    }

    private long blocksSoFar() {
        try (Connection connection = db.getConnection();
             PreparedStatement read = connection.prepareStatement("""
                     SELECT pg_stat_clear_snapshot(), coalesce(heap_blks_read, 0) + coalesce(heap_blks_hit, 0)
                                                    + coalesce(idx_blks_read, 0) + coalesce(idx_blks_hit, 0)
                       FROM pg_statio_user_tables WHERE relname = 'idempotency_records'""");
             ResultSet row = read.executeQuery()) {
            row.next();
            return row.getLong(2);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }
}
