package dev.onceguard.console;

import dev.onceguard.platform.Jobs;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class VerdictTest {

    private static final Instant NOW = Instant.parse("2026-11-30T12:00:00Z");
    private static final Duration WINDOW = Duration.ofMinutes(2);
    /** A payment past its lease at an unknown outcome, and an operation past its lease before any external call. */
    private static final Verdict.Facts STUCK_PAYMENT = new Verdict.Facts("PROCESSING", NOW.minusSeconds(90),
            "outcome_unknown", 0, null, null, 0, 1, 0, 0, 0, List.of(), WINDOW, NOW);
    private static final Verdict.Facts STUCK_START = new Verdict.Facts("PROCESSING", NOW.minusSeconds(90), "started", 0,
            null, null, 0, 0, 0, 0, 0, List.of(), WINDOW, NOW);

    private static Verdict.Facts completed(int replays, int conflicts, int orders, int charges, List<Verdict.SameCart> sameCart) {
        return new Verdict.Facts("COMPLETED", null, "finished", replays, 201, null, conflicts, orders, charges, 0, 0,
                sameCart, WINDOW, NOW);
    }

    private static JobSwitches.Warning off(String job) {
        return new JobSwitches.Warning(job, true, null, null, "what waits");
    }

    private static JobSwitches.Warning failed(String job, Instant at) {
        return new JobSwitches.Warning(job, false, at, "IllegalStateException: boom", "what waits");
    }

    /** The verdict of an operation without a payment story or a recorded ending, every recovery job at work. */
    private static Verdict verdict(Verdict.Facts facts) {
        return Verdict.of(facts, null, new JobSwitches.RecoveryJobs(List.of()), null);
    }

    private static Verdict.SameCart other(long seconds) {
        return new Verdict.SameCart(7, "k-other", "COMPLETED", NOW.minusSeconds(seconds), Duration.ofSeconds(seconds),
                null);
    }

    @Test
    void aRetriedIntentCountsItsRetriesOrderAndCharges() {
        Verdict verdict = verdict(completed(3, 0, 1, 1, List.of()));

        assertThat(verdict.headline()).isEqualTo("One intent, retried 3 times: one order, one charge.");
        assertThat(verdict.tone()).isEqualTo("ok");
        assertThat(verdict.findings()).isEmpty();
    }

    @Test
    void countsAreWrittenTruthfully() {
        assertThat(verdict(completed(1, 0, 1, 0, List.of())).headline())
                .isEqualTo("One intent, retried 1 time: one order, no charge.");
        assertThat(verdict(completed(0, 0, 0, 0, List.of())).headline())
                .isEqualTo("One intent, sent once: no order, no charge.");
        Verdict twoCharges = verdict(completed(0, 0, 1, 2, List.of()));
        assertThat(twoCharges.headline()).isEqualTo("One intent, sent once: one order, 2 charges.");
        assertThat(twoCharges.tone()).isEqualTo("bad");
    }

    @Test
    void aKeyReusedWithAnotherPayloadIsReportedAsRefusedConflicts() {
        Verdict verdict = verdict(completed(0, 2, 1, 0, List.of()));

        assertThat(verdict.findings()).containsExactly(
                "Key reused with a different payload 2 times; those requests were refused (422) and created nothing.");
        assertThat(verdict.tone()).isEqualTo("warn");
    }

    @Test
    void theSameCartUnderAnotherKeyWithinTheWindowIsAPossibleDoubleSubmission() {
        Verdict verdict = verdict(completed(0, 0, 1, 1, List.of(other(12))));

        assertThat(verdict.findings()).containsExactly("Another operation with the same cart under a different key "
                + "exists (12 s apart): a separate intent — possible double submission, within the 2 min window.");
        assertThat(verdict.tone()).isEqualTo("warn");
        assertThat(verdict.sameCart()).extracting(Verdict.SameCart::key).containsExactly("k-other");
    }

    @Test
    void theSameCartOutsideTheWindowIsLikelyDeliberateAndTheNearestIsNamedFirst() {
        Verdict verdict = verdict(completed(0, 0, 1, 1, List.of(other(7200), other(3 * 3600 + 300))));

        assertThat(verdict.findings()).containsExactly("2 other operations with the same cart under different keys "
                + "exist (nearest 2 h 0 min apart): separate intents — outside the 2 min double-submission window, "
                + "so likely a deliberate purchase.");
        assertThat(verdict.tone()).isEqualTo("ok");
        assertThat(verdict.sameCart()).extracting(Verdict.SameCart::apart)
                .containsExactly(Duration.ofHours(2), Duration.ofSeconds(3 * 3600 + 300));
    }

    @Test
    void processingIsInProgressUntilItsLeaseRunsOutThenStuck() {
        Verdict running = verdict(new Verdict.Facts("PROCESSING", NOW.plusSeconds(20), "payment_created", 0, null,
                null, 0, 1, 0, 0, 0, List.of(), WINDOW, NOW));
        Verdict stuck = verdict(new Verdict.Facts("PROCESSING", NOW.minusSeconds(90), "outcome_unknown", 0, null,
                null, 0, 1, 0, 0, 0, List.of(), WINDOW, NOW));

        assertThat(running.headline()).startsWith("Still in progress: the first request is running (recovery point "
                + "payment_created); a retry with this key gets 409");
        assertThat(running.tone()).isEqualTo("warn");
        assertThat(stuck.headline()).startsWith("Stuck past its lease: still PROCESSING at recovery point "
                + "outcome_unknown, its lease ran out 90 s ago.");
        assertThat(stuck.tone()).isEqualTo("bad");
    }

    @Test
    void aStuckOperationIsPromisedOnlyTheRecoveryJobsThatRunHere() {

        String allOff = Verdict.of(STUCK_PAYMENT, null, new JobSwitches.RecoveryJobs(
                List.of(off(Jobs.LEASE_RECOVERY), off(Jobs.RECONCILIATION))), null).headline();
        String bothOn = Verdict.of(STUCK_PAYMENT, null, new JobSwitches.RecoveryJobs(List.of()), null).headline();
        String startWithoutRecovery = Verdict.of(STUCK_START, null,
                new JobSwitches.RecoveryJobs(List.of(off(Jobs.LEASE_RECOVERY))), null).headline();

        assertThat(allOff).doesNotContainIgnoringCase("lease recovery or").doesNotContain("reconciliation,")
                .endsWith("The next retry with the same key, the provider's webhook or an admin's “send to "
                        + "reconciliation” finishes it (lease recovery and reconciliation are switched off here), "
                        + "never with a second charge.");
        assertThat(bothOn).endsWith("Lease recovery, the next retry with the same key, reconciliation, the provider's "
                + "webhook or an admin's “send to reconciliation” finishes it, never with a second charge.");
        assertThat(startWithoutRecovery).endsWith("The next retry with the same key runs it again, or an admin releases "
                + "it on the stuck page (lease recovery is switched off here).");
    }

    @Test
    void aRecoveryJobWhoseLatestRunFailedIsNotPromised() {
        JobSwitches.RecoveryJobs jobs = new JobSwitches.RecoveryJobs(List.of(
                failed(Jobs.LEASE_RECOVERY, NOW.minusSeconds(30)), off(Jobs.RECONCILIATION)));

        String payment = Verdict.of(STUCK_PAYMENT, null, jobs, null).headline();
        String start = Verdict.of(STUCK_START, null, jobs, null).headline();

        assertThat(payment).endsWith("The next retry with the same key, the provider's webhook or an admin's “send to "
                + "reconciliation” finishes it (reconciliation is switched off here; lease recovery's latest run failed "
                + "at 2026-11-30 11:59:30 UTC), never with a second charge.");
        assertThat(start).endsWith("The next retry with the same key runs it again, or an admin releases it on the "
                + "stuck page (lease recovery's latest run failed at 2026-11-30 11:59:30 UTC).");
    }

    @Test
    void aStoredRefusalCreatedNothing() {
        Verdict verdict = verdict(new Verdict.Facts("FAILED", null, "finished", 2, 409, "OUT_OF_STOCK", 0, 0, 0, 0,
                0, List.of(), WINDOW, NOW));

        assertThat(verdict.headline()).isEqualTo("Refused, and the refusal is stored: the first request was answered "
                + "409 OUT_OF_STOCK and its 2 retries got the same answer. This operation created nothing.");
        assertThat(verdict.tone()).isEqualTo("warn");
    }

    @Test
    void duplicateDeliveriesAndLicensesAreCounted() {
        Verdict verdict = verdict(new Verdict.Facts("COMPLETED", null, "finished", 0, 201, null, 0, 1, 1, 2, 1,
                List.of(), WINDOW, NOW));

        assertThat(verdict.findings()).containsExactly(
                "The provider delivered webhook events 2 extra times; the duplicates were answered 200 and changed nothing.",
                "One license issued.");
    }

    @Test
    void spansAreShortAndExact() {
        assertThat(Verdict.span(Duration.ofSeconds(45))).isEqualTo("45 s");
        assertThat(Verdict.span(Duration.ofSeconds(75))).isEqualTo("75 s");
        assertThat(Verdict.span(Duration.ofMinutes(2))).isEqualTo("2 min");
        assertThat(Verdict.span(Duration.ofSeconds(3 * 3600 + 300))).isEqualTo("3 h 5 min");
        assertThat(Verdict.span(Duration.ofHours(52))).isEqualTo("2 d 4 h");
    }
}
