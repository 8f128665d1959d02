package dev.onceguard.console;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.stream.IntStream;

/**
 * One hourly series drawn as SVG bars: the geometry is computed here, the template only writes the attributes.
 * The drawing area is {@link #WIDTH} × {@link #HEIGHT} user units; the tallest bar is the series' peak.
 *
 * @param id          unique on the page, for the SVG's {@code aria-labelledby}
 * @param description the chart in words (the SVG's {@code <desc>}), for readers who do not see the bars
 */
public record HourlyChart(String id, String title, String description, long total, long peak, List<Bar> bars,
                          List<HourLabel> hourLabels) {

    public static final int WIDTH = 240;
    public static final int HEIGHT = 100;
    static final int PLOT_TOP = 14;
    static final int BASELINE = 84;
    private static final int SLOT = WIDTH / 24;
    private static final int BAR_WIDTH = SLOT - 2;
    private static final DateTimeFormatter HOUR = DateTimeFormatter.ofPattern("HH:mm").withZone(ZoneOffset.UTC);

    /** One hour's bar; {@code label} is its tooltip, such as {@code 14:00 UTC: 12}. */
    public record Bar(int x, int y, int width, int height, String label) {
    }

    public record HourLabel(int x, String text) {
    }

    /**
     * @param hours  the start of each hour, oldest first
     * @param counts the count of each hour, in the same order
     */
    public static HourlyChart of(String id, String title, List<Instant> hours, List<Long> counts) {
        long peak = counts.stream().mapToLong(Long::longValue).max().orElse(0);
        long total = counts.stream().mapToLong(Long::longValue).sum();
        int peakIndex = counts.indexOf(peak);
        List<Bar> bars = IntStream.range(0, hours.size()).mapToObj(i -> {
            int height = barHeight(counts.get(i), peak);
            return new Bar(i * SLOT + 1, BASELINE - height, BAR_WIDTH, height,
                    HOUR.format(hours.get(i)) + " UTC: " + counts.get(i));
        }).toList();
        List<HourLabel> labels = IntStream.range(0, hours.size()).filter(i -> i % 6 == 0)
                .mapToObj(i -> new HourLabel(i * SLOT + 1, HOUR.format(hours.get(i)))).toList();
        String description = total == 0
                ? title + ": none in the last 24 hours."
                : title + ": " + total + " in the last 24 hours; the busiest hour began at "
                + HOUR.format(hours.get(peakIndex)) + " UTC with " + peak + ".";
        return new HourlyChart(id, title, description, total, peak, bars, labels);
    }

    /** Proportional to the peak; a count above zero is always at least one unit tall, so it stays visible. */
    static int barHeight(long count, long peak) {
        if (count <= 0 || peak <= 0) {
            return 0;
        }
        int plot = BASELINE - PLOT_TOP;
        return (int) Math.max(1, Math.round((double) count * plot / peak));
    }

    public int baseline() {
        return BASELINE;
    }
}
