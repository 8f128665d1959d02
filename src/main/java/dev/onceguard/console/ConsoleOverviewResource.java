package dev.onceguard.console;

import io.quarkus.qute.CheckedTemplate;
import io.quarkus.qute.TemplateInstance;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;

import io.quarkus.runtime.annotations.RegisterForReflection;

/** {@code GET /console}: the last 24 hours at a glance, each number a link to the list behind it. */
@RegisterForReflection
@Path("/console")
@Produces(MediaType.TEXT_HTML)
public class ConsoleOverviewResource {

    @CheckedTemplate
    static class Templates {
        static native TemplateInstance overview(ActivityOverview.Overview overview, String requestsSince,
                                                long unknownMinutes);
    }

    private final ActivityOverview activity;

    public ConsoleOverviewResource(ActivityOverview activity) {
        this.activity = activity;
    }

    @GET
    public TemplateInstance overview() {
        ActivityOverview.Overview overview = activity.read();
        return Templates.overview(overview,
                ConsoleRequestsResource.PAGE + "?from=" + OperationFilter.FILTER_TIME.format(overview.since())
                        + "&outcome=",
                ActivityOverview.UNKNOWN_TOO_LONG.toMinutes());
    }
}
