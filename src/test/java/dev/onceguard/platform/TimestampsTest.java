package dev.onceguard.platform;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.time.Instant;

import static org.assertj.core.api.Assertions.assertThat;

class TimestampsTest {

    @ParameterizedTest
    @CsvSource({
            "2026-12-03T08:04:05Z,              2026-12-03T08:04:05.000Z",
            "2026-12-03T08:04:05.000999999Z,    2026-12-03T08:04:05.000Z",
            "2026-12-03T08:04:05.001Z,          2026-12-03T08:04:05.001Z",
            "2026-12-03T08:04:05.120Z,          2026-12-03T08:04:05.120Z",
            "2026-12-03T08:04:05.100200300Z,    2026-12-03T08:04:05.100Z",
            "2026-12-03T08:04:05.999999999Z,    2026-12-03T08:04:05.999Z",
            "2026-01-01T00:00:00Z,              2026-01-01T00:00:00.000Z",
            "1970-01-01T00:00:00Z,              1970-01-01T00:00:00.000Z"})
    void formatsEveryInstantWithExactlyThreeDigitsOfMilliseconds(String instant, String expected) {
        assertThat(Timestamps.format(Instant.parse(instant))).isEqualTo(expected);
    }

    @ParameterizedTest
    @CsvSource({"2026-12-03T08:04:05Z", "2026-12-03T08:04:05.120Z", "2026-12-03T08:04:05.999Z"})
    void readsBackAsTheInstantItWrites(String instant) {
        assertThat(Instant.parse(Timestamps.format(Instant.parse(instant)))).isEqualTo(Instant.parse(instant));
    }

    @Test
    void writesNothingForNoInstant() {
        assertThat(Timestamps.format(null)).isNull();
    }
}
