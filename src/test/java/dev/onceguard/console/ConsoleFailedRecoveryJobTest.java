package dev.onceguard.console;

import dev.onceguard.HaltedScheduler;
import dev.onceguard.TestTokens;
import io.agroal.api.AgroalDataSource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

import java.sql.Timestamp;
import java.time.Instant;
import java.util.UUID;

import static dev.onceguard.Database.execute;
import static dev.onceguard.console.InvestigationPages.page;
import static dev.onceguard.console.InvestigationPages.verdict;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A replica where lease recovery is switched on but its latest run failed: the operation page of a stuck operation
 * does not promise that lease recovery finishes it, and says when it failed; a later successful run promises it again.
 * Lease recovery is on in the configuration; the scheduler stays halted so that only this test writes its runs.
 */
@QuarkusTest
@TestProfile(HaltedScheduler.class)
class ConsoleFailedRecoveryJobTest {

    @Inject
    AgroalDataSource db;

    private void leaseRecoveryRan(String outcome, Instant startedAt) {
        execute(db, """
                INSERT INTO job_runs (job, replica, started_at, finished_at, outcome, error)
                VALUES ('lease-recovery', 'replica-b', ?, ?, ?, ?)""",
                Timestamp.from(startedAt), Timestamp.from(startedAt.plusSeconds(1)), outcome,
                outcome.equals("FAILED") ? "PersistenceException: connection refused" : null);
    }

    /** The verdict of an operation's page as its reader sees it (the page escapes apostrophes). */
    private static String verdictOf(long recordId) {
        return verdict(page("/console/operations/" + recordId, 200)).replace("&#39;", "'");
    }

    @Test
    void aStuckOperationIsNotPromisedALeaseRecoveryWhoseLatestRunFailed() {
        long id = MachinerySeeds.processing(db, TestTokens.newUser(), "create-payment", UUID.randomUUID().toString(),
                "payment_created", null, true);
        String promised = "Lease recovery, the next retry with the same key, the provider's webhook or an admin's "
                + "“send to reconciliation” finishes it (reconciliation is switched off here), never with a second charge.";
        assertThat(verdictOf(id)).contains(promised);

        leaseRecoveryRan("FAILED", Instant.parse("2026-03-04T05:06:07Z"));

        assertThat(verdictOf(id))
                .doesNotContain("Lease recovery,")
                .contains("The next retry with the same key, the provider's webhook or an admin's “send to "
                        + "reconciliation” finishes it (reconciliation is switched off here; lease recovery's latest "
                        + "run failed at 2026-03-04 05:06:07 UTC), never with a second charge.");

        leaseRecoveryRan("SUCCEEDED", Instant.parse("2026-03-04T05:06:22Z"));

        assertThat(verdictOf(id)).contains(promised);
    }
}
