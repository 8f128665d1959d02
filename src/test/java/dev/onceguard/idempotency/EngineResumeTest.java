package dev.onceguard.idempotency;

import dev.onceguard.TestTokens;
import dev.onceguard.platform.Cause;
import io.agroal.api.AgroalDataSource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

import java.util.UUID;

import static dev.onceguard.Database.count;
import static dev.onceguard.Database.execute;
import static org.assertj.core.api.Assertions.assertThat;

/** The engine's one resume entry point, as lease recovery and admin actions use it. */
@QuarkusTest
class EngineResumeTest {

    @Inject
    AgroalDataSource db;

    @Inject
    IdempotencyService idempotency;

    private long processingRecord(String user, String operation, String recoveryPoint, boolean leaseExpired) {
        String key = UUID.randomUUID().toString();
        execute(db, """
                INSERT INTO idempotency_records (user_id, operation, idempotency_key, fingerprint, status, recovery_point,
                    lease_expires_at, request_id, created_at, expires_at)
                VALUES (?, ?, ?, repeat('b', 64), 'PROCESSING', ?, now() + CAST(? AS interval), 'seed', now(),
                        now() + interval '24 hours')""",
                user, operation, key, recoveryPoint, leaseExpired ? "-1 minute" : "1 minute");
        return count(db, "SELECT id FROM idempotency_records WHERE user_id = ? AND idempotency_key = ?", user, key);
    }

    @Test
    void aRecordAbandonedBeforeAnyExternalCallIsReleased() {
        String user = TestTokens.newUser();
        long recordId = processingRecord(user, "create-payment", IdempotencyService.STARTED, true);

        assertThat(idempotency.resume(recordId, Cause.leaseRecovery(1))).isInstanceOf(Resumption.Released.class);
        assertThat(count(db, "SELECT count(*) FROM idempotency_records WHERE id = ?", recordId)).isZero();
    }

    @Test
    void aRecordWhoseLeaseIsLiveIsNotTaken() {
        String user = TestTokens.newUser();
        long recordId = processingRecord(user, "create-payment", "payment_created", false);

        assertThat(idempotency.resume(recordId, Cause.leaseRecovery(1))).isInstanceOf(Resumption.NotTaken.class);
        assertThat(count(db, "SELECT count(*) FROM idempotency_records WHERE id = ? AND status = 'PROCESSING' "
                + "AND recovery_point = 'payment_created'", recordId)).isEqualTo(1);
    }

    @Test
    void anOperationThatRegistersNoResumeKeepsItsRecordAsItIs() {
        String user = TestTokens.newUser();
        long recordId = processingRecord(user, "create-order", "order_written", true);

        assertThat(idempotency.resume(recordId, Cause.leaseRecovery(1)))
                .isEqualTo(new Resumption.NoResume("create-order", "order_written"));
        assertThat(count(db, "SELECT count(*) FROM idempotency_records WHERE id = ? AND status = 'PROCESSING' "
                + "AND recovery_point = 'order_written'", recordId)).isEqualTo(1);
    }
}
