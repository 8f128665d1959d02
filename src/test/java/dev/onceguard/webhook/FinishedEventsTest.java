package dev.onceguard.webhook;

import org.junit.jupiter.api.Test;

import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Which settled events a replica remembers: the latest ones. A provider resends what it sent last (a retry, a storm after
 * an outage), so an event settled a moment ago must be found even when the memory is full of older events, however
 * often those were delivered.
 */
class FinishedEventsTest {

    private static final int SIZE = 1_000;

    @Test
    void theLatestSettledEventsAreRememberedEvenWhenOlderOnesWereDeliveredMoreOften() {
        FinishedEvents finished = new FinishedEvents(SIZE);
        IntStream.range(0, 5 * SIZE).forEach(i -> {
            finished.rememberIfSettled("sandbox", "old-" + i, "PROCESSED");
            finished.contains("sandbox", "old-" + i);
            finished.contains("sandbox", "old-" + i);
        });

        IntStream.range(0, SIZE / 2).forEach(i -> finished.rememberIfSettled("sandbox", "new-" + i, "PROCESSED"));

        assertThat(IntStream.range(0, SIZE / 2).filter(i -> finished.contains("sandbox", "new-" + i)).count())
                .isEqualTo(SIZE / 2);
    }

    @Test
    void onlyEventsThatNoDeliveryCanChangeAgainAreRemembered() {
        FinishedEvents finished = new FinishedEvents(SIZE);
        finished.rememberIfSettled("sandbox", "processed", "PROCESSED");
        finished.rememberIfSettled("sandbox", "rejected", "REJECTED");
        finished.rememberIfSettled("sandbox", "ignored", "IGNORED");
        finished.rememberIfSettled("sandbox", "parked", "PENDING_MATCH");
        finished.rememberIfSettled("sandbox", "failed", "FAILED");

        assertThat(finished.contains("sandbox", "processed")).isTrue();
        assertThat(finished.contains("sandbox", "rejected")).isTrue();
        assertThat(finished.contains("yookassa", "processed")).isFalse();
        assertThat(finished.contains("sandbox", "ignored")).isFalse();
        assertThat(finished.contains("sandbox", "parked")).isFalse();
        assertThat(finished.contains("sandbox", "failed")).isFalse();
    }
}
