package dev.onceguard.maintenance;

import dev.onceguard.TestTokens;
import io.agroal.api.AgroalDataSource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Rows deleted per second by retention cleanup over 1,000,000 expired records, and order-creation latency during it.
 * Prints numbers; excluded from the default test run. Run with
 * {@code ./mvnw test -Dtest=RetentionCleanupBenchmark -Dgroups=benchmark -DexcludedGroups=none}.
 */
@QuarkusTest
@Tag("benchmark")
class RetentionCleanupBenchmark {

    @Inject
    AgroalDataSource db;

    @Inject
    RetentionCleanup cleanup;

    @Test
    void cleanupOfAMillionExpiredRecords() throws Exception {
        Seeds.expiredRecords(db, TestTokens.newUser(), 1_000_000);

        CleanupUnderLoad.Result result = CleanupUnderLoad.measure(cleanup, TestTokens.newUser(), 500);

        System.out.println("BENCHMARK " + result.summary());
    }
}
