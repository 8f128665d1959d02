package dev.onceguard.console;

import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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
        OperationFilter filter = OperationFilter.parse(" k ", "", null, "DONE", "refund", "soon", "2026-13-01T00:00", null);

        assertThat(filter.valid()).isFalse();
        assertThat(filter.key()).isEqualTo("k");
        assertThat(filter.user()).isNull();
        assertThat(filter.status()).isNull();
        assertThat(filter.problems()).containsExactly(
                "Status \"DONE\" is not one of PROCESSING, COMPLETED, FAILED.",
                "Operation \"refund\" is not one of create-order, create-payment.",
                "From \"soon\" is not a time: write it as 2026-11-30T05:41 (UTC) or as an ISO-8601 instant such as 2026-11-30T05:41:00Z.",
                "To \"2026-13-01T00:00\" is not a time: write it as 2026-11-30T05:41 (UTC) or as an ISO-8601 instant such as 2026-11-30T05:41:00Z.");
    }

    @Test
    void aTimeRangeMustNotBeEmpty() {
        assertThat(times("2026-11-30T06:00", "2026-11-30T06:00").problems()).containsExactly("From must be before To.");
    }

    @Test
    void pageLinksKeepTheFiltersEncoded() {
        OperationFilter filter = OperationFilter.parse("a&b=c", "u 1", null, "FAILED", null, "2026-11-30T05:00", null, null);
        Pager pager = filter.pager(new Cursor(Instant.parse("2026-11-30T05:41:25.123456Z"), 42));

        assertThat(pager.next()).isEqualTo("/console/operations?key=a%26b%3Dc&user=u+1&status=FAILED"
                + "&from=2026-11-30T05%3A00&after=1796017285123456-42");
        assertThat(pager.first()).isEqualTo("/console/operations?key=a%26b%3Dc&user=u+1&status=FAILED&from=2026-11-30T05%3A00");
        assertThat(pager.continued()).isFalse();
        assertThat(times(null, null).pager(null)).isEqualTo(new Pager("/console/operations", null, false));
    }

    @Test
    void aCursorReadsBackWhatItWrote() {
        Cursor cursor = new Cursor(Instant.parse("2026-11-30T05:41:25.123456Z"), 42);

        assertThat(cursor.token()).isEqualTo("1796017285123456-42");
        assertThat(Cursor.parse(cursor.token())).contains(cursor);
        assertThat(Cursor.parse(null)).isEmpty();
        assertThat(Cursor.parse(" ")).isEmpty();
        for (String text : List.of("2026-11-30T05:41:25Z_42", "1796017285123456", "yesterday-3", "1796017285123456-x", "99999999999999999999-1")) {
            assertThatThrownBy(() -> Cursor.parse(text)).as(text).isInstanceOf(ConsoleRequestRejected.class)
                    .extracting(e -> ((ConsoleRequestRejected) e).status()).isEqualTo(400);
        }
    }

    @Test
    void aPagePositionTheConsoleDidNotWriteRejectsTheRequest() {
        assertThatThrownBy(() -> OperationFilter.parse(null, null, null, null, null, null, null, "garbage"))
                .isInstanceOf(ConsoleRequestRejected.class);
        assertThat(OperationFilter.parse(null, null, null, null, null, null, null, "1796017285123456-42").pager(null).continued())
                .isTrue();
    }
}
