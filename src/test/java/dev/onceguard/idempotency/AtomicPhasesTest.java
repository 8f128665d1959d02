package dev.onceguard.idempotency;

import dev.onceguard.TestTokens;
import dev.onceguard.platform.Cause;
import io.agroal.api.AgroalDataSource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.UUID;

import static dev.onceguard.Database.count;
import static dev.onceguard.Database.execute;
import static org.assertj.core.api.Assertions.assertThat;

/** How the engine applies what an operation's atomic phases come to, through its one resume entry point. */
@QuarkusTest
class AtomicPhasesTest {

    private static final StoredResponse ACCEPTED = new StoredResponse(202, Map.of(), "{\"waiting\":true}".getBytes(),
            "thing", "t-1");
    private static final StoredResponse CREATED = new StoredResponse(201, Map.of(), "{\"mine\":true}".getBytes(),
            "thing", "t-1");

    @Inject
    AgroalDataSource db;

    @Inject
    IdempotencyService idempotency;

    @Inject
    ScriptedOperation operation;

    private long expiredRecordAt(String recoveryPoint) {
        String user = TestTokens.newUser();
        String key = UUID.randomUUID().toString();
        execute(db, """
                INSERT INTO idempotency_records (user_id, operation, idempotency_key, fingerprint, status, recovery_point,
                    lease_expires_at, resource_type, resource_id, request_id, created_at, expires_at)
                VALUES (?, ?, ?, repeat('d', 64), 'PROCESSING', ?, now() - interval '1 minute', 'thing', 't-1', 'seed',
                        now(), now() + interval '24 hours')""", user, ScriptedOperation.NAME, key, recoveryPoint);
        return count(db, "SELECT id FROM idempotency_records WHERE user_id = ? AND idempotency_key = ?", user, key);
    }

    private long records(long recordId, String condition) {
        return count(db, "SELECT count(*) FROM idempotency_records WHERE id = ? AND " + condition, recordId);
    }

    @Test
    void aRecoveryPointThatKeepsTheLeaseGoesOnAtOnceAndOneThatGivesItUpPausesThere() {
        long recordId = expiredRecordAt("first");
        Checkpoint second = new Checkpoint("second", "thing", "t-1");
        Checkpoint third = new Checkpoint("third", "thing", "t-1");
        operation.script(List.of(() -> () -> PhaseResult.continueAt(second), () -> () -> PhaseResult.pause(third, ACCEPTED)));

        Resumption resumption = idempotency.resume(recordId, Cause.leaseRecovery(0));

        assertThat(resumption).isEqualTo(new Resumption.Paused(new Checkpoint("first", "thing", "t-1"), third));
        assertThat(records(recordId, "status = 'PROCESSING' AND recovery_point = 'third' AND response_status IS NULL"
                + " AND lease_expires_at <= now()")).as("paused, its answer not stored, its lease given up").isEqualTo(1);
    }

    @Test
    void aNoOpLeavesTheRecordWhereItWasUnderTheTakersLease() {
        long recordId = expiredRecordAt("first");
        operation.script(List.of(() -> PhaseResult::noOp));

        Resumption resumption = idempotency.resume(recordId, Cause.leaseRecovery(0));

        Checkpoint first = new Checkpoint("first", "thing", "t-1");
        assertThat(resumption).isEqualTo(new Resumption.Paused(first, first));
        assertThat(records(recordId, "status = 'PROCESSING' AND recovery_point = 'first' AND lease_expires_at > now()"))
                .isEqualTo(1);
    }

    @Test
    void aFinalResponseIsStoredWithThePhasesOwnWrites() {
        long recordId = expiredRecordAt("first");
        operation.script(List.of(() -> () -> {
            execute(db, "UPDATE idempotency_records SET request_id = 'written by the phase' WHERE id = ?", recordId);
            return PhaseResult.completed(CREATED);
        }));

        Resumption resumption = idempotency.resume(recordId, Cause.leaseRecovery(0));

        assertThat(resumption).isInstanceOfSatisfying(Resumption.Finished.class,
                finished -> assertThat(finished.response().body()).isEqualTo(CREATED.body()));
        assertThat(records(recordId, "status = 'COMPLETED' AND recovery_point = 'finished' AND response_status = 201"
                + " AND lease_expires_at IS NULL AND request_id = 'written by the phase'")).isEqualTo(1);
    }

    @Test
    void aFinalResponseThatFindsTheRecordFinishedBySomeoneElseAnswersWhatItStored() {
        long recordId = expiredRecordAt("first");
        operation.script(List.of(() -> {
            execute(db, """
                    UPDATE idempotency_records SET status = 'COMPLETED', recovery_point = 'finished', response_status = 201,
                           response_headers = '{}', response_body = convert_to('{"theirs":true}', 'UTF8'),
                           lease_expires_at = NULL, completed_at = now()
                     WHERE id = ?""", recordId);
            return () -> PhaseResult.completed(CREATED);
        }));

        Resumption resumption = idempotency.resume(recordId, Cause.leaseRecovery(0));

        assertThat(resumption).isInstanceOfSatisfying(Resumption.Finished.class,
                finished -> assertThat(new String(finished.response().body())).isEqualTo("{\"theirs\":true}"));
        assertThat(records(recordId, "convert_from(response_body, 'UTF8') = '{\"theirs\":true}'")).isEqualTo(1);
    }

    /** While the holder makes its outside call its lease runs out, and another taker sets its own and moves on. */
    private void overtakenDuringTheCall(long recordId) {
        execute(db, """
                UPDATE idempotency_records SET lease_expires_at = now() + interval '5 minutes', recovery_point = 'theirs'
                 WHERE id = ?""", recordId);
    }

    @Test
    void aFinalResponseOfAHolderWhoseLeaseWasTakenOverIsNotStored() {
        long recordId = expiredRecordAt("first");
        operation.script(List.of(() -> {
            overtakenDuringTheCall(recordId);
            return () -> PhaseResult.completed(CREATED);
        }));

        Resumption resumption = idempotency.resume(recordId, Cause.leaseRecovery(0));

        assertThat(resumption).isEqualTo(new Resumption.NotTaken());
        assertThat(records(recordId, "status = 'PROCESSING' AND recovery_point = 'theirs' AND response_status IS NULL"
                + " AND lease_expires_at > now() + interval '4 minutes'")).as("still the new taker's").isEqualTo(1);
    }

    @Test
    void aRecoveryPointOfAHolderWhoseLeaseWasTakenOverIsNotSaved() {
        long recordId = expiredRecordAt("first");
        operation.script(List.of(() -> {
            overtakenDuringTheCall(recordId);
            return () -> PhaseResult.pause(new Checkpoint("mine", "thing", "t-1"), ACCEPTED);
        }));

        Resumption resumption = idempotency.resume(recordId, Cause.leaseRecovery(0));

        assertThat(resumption).isEqualTo(new Resumption.NotTaken());
        assertThat(records(recordId, "status = 'PROCESSING' AND recovery_point = 'theirs'"
                + " AND lease_expires_at > now() + interval '4 minutes'")).as("still the new taker's").isEqualTo(1);
    }
}
