package dev.onceguard.idempotency;

import io.agroal.api.AgroalDataSource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;

import static dev.onceguard.Database.count;

/** The engine's states over PostgreSQL, the store the service runs on. */
@QuarkusTest
class PostgresEngineStatesTest extends EngineStatesContract {

    @Inject
    PostgresIdempotencyStore postgres;

    @Inject
    AgroalDataSource db;

    @Override
    IdempotencyStore newStore() {
        return postgres;
    }

    @Override
    long conflictsOf(long recordId) {
        return count(db, "SELECT count(*) FROM idempotency_conflicts WHERE record_id = ?", recordId);
    }
}
