package dev.onceguard.console;

import dev.onceguard.platform.Jobs;
import dev.onceguard.platform.KeysetQuery;
import jakarta.enterprise.context.ApplicationScoped;
import org.eclipse.microprofile.config.Config;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

import static dev.onceguard.platform.SqlRows.instant;

/** Runs of the scheduled jobs ({@code job_runs}, every replica's), newest first, and each job's last success. */
@ApplicationScoped
public class JobHistory {

    static final List<String> JOBS = Jobs.ALL.stream().sorted().toList();

    public record Run(long id, String job, String replica, Instant startedAt, Instant finishedAt, String outcome,
                      String counts, String error) {

        public String duration() {
            long millis = Duration.between(startedAt, finishedAt).toMillis();
            return millis < 1000 ? millis + " ms" : String.format("%.1f s", millis / 1000.0);
        }

        public String statusClass() {
            return StatusBadges.jobRun(outcome);
        }
    }

    static final List<CsvExport.Column<Run>> CSV = List.of(
            new CsvExport.Column<>("run_id", Run::id),
            new CsvExport.Column<>("job", Run::job),
            new CsvExport.Column<>("replica", Run::replica),
            new CsvExport.Column<>("started_at", Run::startedAt),
            new CsvExport.Column<>("finished_at", Run::finishedAt),
            new CsvExport.Column<>("outcome", Run::outcome),
            new CsvExport.Column<>("counts", Run::counts),
            new CsvExport.Column<>("error", Run::error));

    public record Summary(String job, String schedule, Instant lastRunAt, String lastOutcome, Instant lastSuccessAt) {

        public String statusClass() {
            return StatusBadges.jobRun(lastOutcome);
        }
    }

    private final ConsoleReads reads;
    private final Config config;

    public JobHistory(ConsoleReads reads, Config config) {
        this.reads = reads;
        this.config = config;
    }

    static String job(String name) {
        if (name == null || name.isEmpty()) {
            return null;
        }
        if (!Jobs.ALL.contains(name)) {
            throw ConsoleRequestRejected.badRequest("There is no job of that name; the jobs are " + String.join(", ", JOBS) + ".");
        }
        return name;
    }

    KeysetPage<Run> list(String job, Optional<Cursor> after) {
        KeysetQuery query = KeysetQuery.newestFirst("""
                SELECT id, job, replica, started_at, finished_at, outcome, error,
                       (SELECT string_agg(key || ' ' || value, ', ' ORDER BY key) FROM jsonb_each_text(counts)) AS counts
                  FROM job_runs""", "started_at", "id", KeysetPage.SIZE)
                .whereGiven("job = ?", job);
        after.ifPresent(cursor -> query.after(cursor.at(), cursor.number()));
        return reads.page(query, row -> new Run(row.getLong("id"), row.getString("job"),
                row.getString("replica"), instant(row, "started_at"),
                instant(row, "finished_at"), row.getString("outcome"), row.getString("counts"),
                row.getString("error")), row -> new Cursor(row.startedAt(), row.id()));
    }

    List<Summary> summaries() {
        return reads.list("""
                        SELECT j.job, last.started_at AS last_run_at, last.outcome AS last_outcome,
                               success.started_at AS last_success_at
                          FROM unnest(?) AS j(job)
                          LEFT JOIN LATERAL (SELECT started_at, outcome FROM job_runs r WHERE r.job = j.job
                                              ORDER BY started_at DESC LIMIT 1) last ON true
                          LEFT JOIN LATERAL (SELECT started_at FROM job_runs r
                                              WHERE r.job = j.job AND r.outcome = 'SUCCEEDED'
                                              ORDER BY started_at DESC LIMIT 1) success ON true
                         ORDER BY j.job""",
                row -> new Summary(row.getString("job"), schedule(row.getString("job")),
                        instant(row, "last_run_at"), row.getString("last_outcome"),
                        instant(row, "last_success_at")),
                (Object) JOBS.toArray(String[]::new));
    }

    private String schedule(String job) {
        return config.getOptionalValue("onceguard.jobs." + job + ".every", String.class)
                .map(every -> every.equals("off") ? "off" : "every " + every)
                .orElse("on its default schedule");
    }
}
