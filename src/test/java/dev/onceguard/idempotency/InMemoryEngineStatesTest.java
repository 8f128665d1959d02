package dev.onceguard.idempotency;

import dev.onceguard.platform.SqlRows;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import jakarta.transaction.TransactionSynchronizationRegistry;

import java.util.HashSet;

/** The engine's states over its in-memory store: what runs in the engine runs here without a record in PostgreSQL. */
@QuarkusTest
class InMemoryEngineStatesTest extends EngineStatesContract {

    @Inject
    TransactionSynchronizationRegistry transactions;

    @Inject
    SqlRows sql;

    private InMemoryIdempotencyStore memory;

    @Override
    IdempotencyStore newStore() {
        memory = new InMemoryIdempotencyStore(transactions,
                keeper -> new HashSet<>(sql.list(keeper.unfinishedResources(), row -> row.getString(1))));
        return memory;
    }

    @Override
    long conflictsOf(long recordId) {
        return memory.conflictsOf(recordId).size();
    }
}
