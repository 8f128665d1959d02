package dev.onceguard.console;

import io.quarkus.qute.CheckedTemplate;
import io.quarkus.qute.TemplateInstance;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.FormParam;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

import java.util.List;
import java.util.Optional;
import io.quarkus.runtime.annotations.RegisterForReflection;

/** {@code /console/jobs}: runs of the scheduled jobs, each job's last success, and "run now". */
@RegisterForReflection
@Path("/console/jobs")
@Produces(MediaType.TEXT_HTML)
@RolesAllowed({ConsoleUser.SUPPORT, ConsoleUser.ADMIN})
public class ConsoleJobsResource {

    private static final String PAGE = "/console/jobs";

    @CheckedTemplate
    static class Templates {
        static native TemplateInstance jobs(String job, List<JobHistory.Summary> summaries, KeysetPage<JobHistory.Run> page,
                                            Pager pager, AdminNotice.Shown notice);
    }

    private final JobHistory history;
    private final JobLauncher launcher;
    private final ConsoleAudit audit;

    public ConsoleJobsResource(JobHistory history, JobLauncher launcher, ConsoleAudit audit) {
        this.history = history;
        this.launcher = launcher;
        this.audit = audit;
    }

    @GET
    public Response jobs(@QueryParam("job") String job, @QueryParam("after") String after,
                         @QueryParam("notice") String notice, @QueryParam("target") String target,
                         @QueryParam("format") String format) {
        String shown = JobHistory.job(job);
        Optional<Cursor> position = Cursor.parse(after);
        if (CsvExport.wanted(format)) {
            return CsvExport.of("job-runs", JobHistory.CSV, at -> history.list(shown, at));
        }
        KeysetPage<JobHistory.Run> page = history.list(shown, position);
        return HtmlResponses.page(200, Templates.jobs(shown, history.summaries(), page,
                Pager.of(PAGE, position.isPresent(), page.next(), "job", shown), AdminNotice.of(notice, target).orElse(null)));
    }

    @POST
    @Path("/{job}/run")
    @Consumes(MediaType.APPLICATION_FORM_URLENCODED)
    @RolesAllowed(ConsoleUser.ADMIN)
    public Response runNow(@PathParam("job") String job, @FormParam("reason") String typedReason) {
        if (!JobHistory.JOBS.contains(job)) {
            throw ConsoleRequestRejected.notFound("There is no job of that name; the jobs are "
                    + String.join(", ", JobHistory.JOBS) + ".");
        }
        String reason = AdminReason.require(typedReason);
        return audit.perform("run-now", "job", job, reason, AdminNotice.JOB_FAILED, () -> launcher.runNow(job))
                .seeOther(PAGE, job);
    }
}
