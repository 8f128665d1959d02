package dev.onceguard.console;

import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class HourlyChartTest {

    private static final Instant SINCE = Instant.parse("2026-11-29T13:00:00Z");

    private static List<Instant> hours() {
        List<Instant> hours = new ArrayList<>();
        for (int i = 0; i < 24; i++) {
            hours.add(SINCE.plus(i, ChronoUnit.HOURS));
        }
        return hours;
    }

    @Test
    void barsAreProportionalToThePeakAndStandOnTheBaseline() {
        List<Long> counts = new ArrayList<>(Collections.nCopies(24, 0L));
        counts.set(3, 100L);
        counts.set(4, 50L);
        counts.set(5, 1L);

        HourlyChart chart = HourlyChart.of("chart-executed", "Executed requests", hours(), counts);

        assertThat(chart.bars()).hasSize(24);
        HourlyChart.Bar peak = chart.bars().get(3);
        assertThat(peak.height()).isEqualTo(HourlyChart.BASELINE - HourlyChart.PLOT_TOP);
        assertThat(peak.y() + peak.height()).isEqualTo(HourlyChart.BASELINE);
        assertThat(chart.bars().get(4).height()).isEqualTo(35);
        assertThat(chart.bars().get(5).height()).isEqualTo(1);
        assertThat(chart.bars().get(0).height()).isZero();
        assertThat(chart.bars()).allSatisfy(bar -> assertThat(bar.x() + bar.width()).isLessThanOrEqualTo(HourlyChart.WIDTH));
        assertThat(peak.label()).isEqualTo("16:00 UTC: 100");
        assertThat(chart.total()).isEqualTo(151);
        assertThat(chart.peak()).isEqualTo(100);
        assertThat(chart.description()).isEqualTo(
                "Executed requests: 151 in the last 24 hours; the busiest hour began at 16:00 UTC with 100.");
        assertThat(chart.hourLabels()).extracting(HourlyChart.HourLabel::text)
                .containsExactly("13:00", "19:00", "01:00", "07:00");
    }

    @Test
    void anEmptySeriesSaysSo() {
        HourlyChart chart = HourlyChart.of("chart-conflict", "Conflicts", hours(), Collections.nCopies(24, 0L));

        assertThat(chart.bars()).allSatisfy(bar -> assertThat(bar.height()).isZero());
        assertThat(chart.description()).isEqualTo("Conflicts: none in the last 24 hours.");
    }
}
