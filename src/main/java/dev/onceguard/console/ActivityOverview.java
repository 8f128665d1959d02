package dev.onceguard.console;

import dev.onceguard.idempotency.IdempotencyRecordQueries;
import jakarta.enterprise.context.ApplicationScoped;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import java.util.stream.Stream;

import static dev.onceguard.platform.SqlRows.instant;

/**
 * The overview's numbers, each read from the tables the lists behind them read, so a number and its list agree and
 * both survive a crash or a restart: request counts per outcome from the request log ({@code idempotency_request_log}
 * by time), duplicate deliveries from the delivery log ({@code webhook_deliveries}), stuck operations, outbox
 * backlog and unknown payments from partial or status indexes, and the last run of each job from {@code job_runs}.
 */
@ApplicationScoped
public class ActivityOverview {

    static final int HOURS = 24;
    static final Duration UNKNOWN_TOO_LONG = Duration.ofMinutes(15);

    public record Overview(Instant since, Map<String, Long> totals, long stuck, long processing, long outboxPending,
                           long outboxRetrying, long outboxDead, Instant oldestPending, long unknownPayments,
                           long unknownPaymentsOld, long failedWebhookEvents, List<JobSwitches.LastRun> jobs,
                           List<HourlyChart> charts, List<HourRow> hours, List<JobSwitches.Warning> jobWarnings) {

        public long total(String series) {
            return totals.getOrDefault(series, 0L);
        }

        /** Whether {@code job} is switched off here or its latest run failed. */
        public boolean notAtWork(String job) {
            return jobWarnings.stream().anyMatch(w -> w.job().equals(job));
        }
    }

    /** One hour of the charts' data table. */
    public record HourRow(Instant hour, List<Long> counts) {
    }

    /** A charted series: a request log outcome in lower case, or duplicate deliveries. */
    private record Series(String id, String title) {
    }

    private static final String DUPLICATE = "duplicate";
    private static final List<Series> CHARTED = List.of(
            new Series("executed", "Executed requests"),
            new Series("replayed", "Replayed requests"),
            new Series("conflict", "Key-reuse conflicts (422)"),
            new Series(DUPLICATE, "Duplicate webhook deliveries"));

    private final ConsoleReads reads;
    private final IdempotencyRecordQueries records;
    private final JobSwitches jobSwitches;

    public ActivityOverview(ConsoleReads reads, IdempotencyRecordQueries records, JobSwitches jobSwitches) {
        this.reads = reads;
        this.records = records;
        this.jobSwitches = jobSwitches;
    }

    public Overview read() {
        Instant since = Instant.now().truncatedTo(ChronoUnit.HOURS).minus(HOURS - 1, ChronoUnit.HOURS);
        List<Instant> hours = Stream.iterate(since, hour -> hour.plus(1, ChronoUnit.HOURS)).limit(HOURS).toList();
        Map<String, long[]> perHour = hourly(since);
        Map<String, Long> totals = new HashMap<>();
        perHour.forEach((series, counts) -> totals.put(series, Arrays.stream(counts).sum()));
        IdempotencyRecordQueries.Processing processing = records.processing();
        Outbox outbox = outbox();
        UnknownPayments unknown = unknownPayments();
        List<JobSwitches.LastRun> lastRuns = jobSwitches.lastRuns();
        long failedWebhookEvents = reads.number("SELECT count(*) FROM webhook_inbox WHERE status = 'FAILED'");
        return new Overview(since, totals, processing.stuck(), processing.processing(), outbox.pending(), outbox.retrying(),
                outbox.dead(), outbox.oldestPending(), unknown.all(), unknown.old(), failedWebhookEvents, lastRuns,
                charts(hours, perHour), table(hours, perHour), JobSwitches.warnings(lastRuns));
    }

    private static List<HourlyChart> charts(List<Instant> hours, Map<String, long[]> perHour) {
        return CHARTED.stream().map(series -> HourlyChart.of("chart-" + series.id(), series.title(), hours,
                Arrays.stream(perHour.getOrDefault(series.id(), new long[HOURS])).boxed().toList())).toList();
    }

    private static List<HourRow> table(List<Instant> hours, Map<String, long[]> perHour) {
        return IntStream.range(0, HOURS).mapToObj(hour -> new HourRow(hours.get(hour), CHARTED.stream()
                .map(series -> perHour.getOrDefault(series.id(), new long[HOURS])[hour]).toList())).toList();
    }

    private record Outbox(long pending, long retrying, long dead, Instant oldestPending) {
    }

    private Outbox outbox() {
        return reads.one("""
                        SELECT count(*) FILTER (WHERE status = 'PENDING') AS pending,
                               count(*) FILTER (WHERE status = 'PENDING' AND attempts > 0) AS retrying,
                               count(*) FILTER (WHERE status = 'DEAD') AS dead,
                               min(created_at) FILTER (WHERE status = 'PENDING') AS oldest_pending
                          FROM outbox_events WHERE status IN ('PENDING', 'DEAD')""",
                row -> new Outbox(row.getLong("pending"), row.getLong("retrying"), row.getLong("dead"),
                        instant(row, "oldest_pending"))).orElseThrow();
    }

    private record UnknownPayments(long all, long old) {
    }

    private UnknownPayments unknownPayments() {
        return reads.one("""
                        SELECT count(*) AS unknown, count(*) FILTER (WHERE updated_at < ?) AS old
                          FROM payments WHERE status = 'UNKNOWN'""",
                row -> new UnknownPayments(row.getLong("unknown"), row.getLong("old")),
                Instant.now().minus(UNKNOWN_TOO_LONG)).orElseThrow();
    }

    /**
     * Counts per series and hour since {@code since}: logged requests by outcome ({@code executed}, {@code replayed},
     * {@code conflict}, {@code in_progress}, {@code refused}) and duplicate webhook deliveries.
     */
    private Map<String, long[]> hourly(Instant since) {
        record Count(Instant hour, String series, long count) {
        }
        Map<String, long[]> perHour = new HashMap<>();
        for (Count count : reads.list("""
                        SELECT date_trunc('hour', received_at) AS hour, lower(outcome) AS series, count(*) AS count
                          FROM idempotency_request_log WHERE received_at >= ? GROUP BY 1, 2
                        UNION ALL
                        SELECT date_trunc('hour', delivered_at), 'duplicate', count(*)
                          FROM webhook_deliveries WHERE outcome = 'duplicate' AND delivered_at >= ? GROUP BY 1""",
                row -> new Count(instant(row, "hour"), row.getString("series"), row.getLong("count")), since, since)) {
            int hour = (int) Duration.between(since, count.hour()).toHours();
            if (hour >= 0 && hour < HOURS) {
                perHour.computeIfAbsent(count.series(), s -> new long[HOURS])[hour] += count.count();
            }
        }
        return perHour;
    }
}
