package dev.onceguard.console;

import org.junit.jupiter.api.Test;

import java.time.Instant;

import static org.assertj.core.api.Assertions.assertThat;

class OperationFilterTest {

    private static OperationFilter times(String from, String to) {
        return OperationFilter.parse(null, null, null, null, null, from, to, null);
    }

    @Test
    void timesAreReadAsUtcMinutesOrIsoInstants() {
        assertThat(times("2026-11-30T05:41", null).from()).isEqualTo(Instant.parse("2026-11-30T05:41:00Z"));
        assertThat(times("2026-11-30T05:41:30", null).from()).isEqualTo(Instant.parse("2026-11-30T05:41:30Z"));
        assertThat(times(null, "2026-11-30T08:41:00+03:00").to()).isEqualTo(Instant.parse("2026-11-30T05:41:00Z"));
        assertThat(times(null, "2026-11-30T05:41:00.5Z").to()).isEqualTo(Instant.parse("2026-11-30T05:41:00.500Z"));
    }

    @Test
    void everyInvalidValueIsNamedAndNothingIsKept() {
        OperationFilter filter = OperationFilter.parse(" k ", "", null, "DONE", "refund", "soon", "2026-13-01T00:00", "x");

        assertThat(filter.valid()).isFalse();
        assertThat(filter.key()).isEqualTo("k");
        assertThat(filter.user()).isNull();
        assertThat(filter.status()).isNull();
        assertThat(filter.problems()).containsExactly(
                "Status \"DONE\" is not one of PROCESSING, COMPLETED, FAILED.",
                "Operation \"refund\" is not one of create-order, create-payment.",
                "From \"soon\" is not a time: write it as 2026-11-30T05:41 (UTC) or as an ISO-8601 instant such as 2026-11-30T05:41:00Z.",
                "To \"2026-13-01T00:00\" is not a time: write it as 2026-11-30T05:41 (UTC) or as an ISO-8601 instant such as 2026-11-30T05:41:00Z.",
                "The page cursor \"x\" is not valid: start again from the first page.");
    }

    @Test
    void aTimeRangeMustNotBeEmpty() {
        assertThat(times("2026-11-30T06:00", "2026-11-30T06:00").problems()).containsExactly("From must be before To.");
    }

    @Test
    void pageLinksKeepTheFiltersEncoded() {
        OperationFilter filter = OperationFilter.parse("a&b=c", "u 1", null, "FAILED", null, "2026-11-30T05:00", null, null);
        KeysetCursor cursor = new KeysetCursor(Instant.parse("2026-11-30T05:41:25.123456Z"), 42);

        assertThat(filter.pageAfter(cursor)).isEqualTo("/console/operations?key=a%26b%3Dc&user=u+1&status=FAILED"
                + "&from=2026-11-30T05%3A00&after=2026-11-30T05%3A41%3A25.123456Z_42");
        assertThat(filter.firstPage()).isEqualTo("/console/operations?key=a%26b%3Dc&user=u+1&status=FAILED&from=2026-11-30T05%3A00");
        assertThat(OperationFilter.none().firstPage()).isEqualTo("/console/operations");
    }

    @Test
    void aCursorReadsBackWhatItWrote() {
        KeysetCursor cursor = new KeysetCursor(Instant.parse("2026-11-30T05:41:25.123456Z"), 42);

        assertThat(KeysetCursor.parse(cursor.value())).contains(cursor);
        assertThat(KeysetCursor.parse("2026-11-30T05:41:25Z")).isEmpty();
        assertThat(KeysetCursor.parse("yesterday_3")).isEmpty();
        assertThat(KeysetCursor.parse("2026-11-30T05:41:25Z_x")).isEmpty();
    }
}
