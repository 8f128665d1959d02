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

import java.util.Optional;
import io.quarkus.runtime.annotations.RegisterForReflection;

/** {@code /console/outbox}: pending, retrying and dead outbox events, and "retry now" of a dead one. */
@RegisterForReflection
@Path("/console/outbox")
@Produces(MediaType.TEXT_HTML)
@RolesAllowed({ConsoleUser.SUPPORT, ConsoleUser.ADMIN})
public class ConsoleOutboxResource {

    private static final String PAGE = "/console/outbox";

    @CheckedTemplate
    static class Templates {
        static native TemplateInstance outbox(OutboxBacklog.Shown shown, OutboxBacklog.Counts counts,
                                              KeysetPage<OutboxBacklog.Event> page, Pager pager, AdminNotice.Shown notice);
    }

    private final OutboxBacklog backlog;
    private final ConsoleAudit audit;

    public ConsoleOutboxResource(OutboxBacklog backlog, ConsoleAudit audit) {
        this.backlog = backlog;
        this.audit = audit;
    }

    @GET
    public Response outbox(@QueryParam("status") String status, @QueryParam("after") String after,
                           @QueryParam("notice") String notice, @QueryParam("target") String target,
                           @QueryParam("format") String format) {
        OutboxBacklog.Shown shown = OutboxBacklog.Shown.of(status);
        Optional<Cursor> position = Cursor.parse(after);
        if (CsvExport.wanted(format)) {
            return CsvExport.of("outbox-" + shown.name().toLowerCase(java.util.Locale.ROOT), OutboxBacklog.CSV,
                    at -> backlog.list(shown, at));
        }
        KeysetPage<OutboxBacklog.Event> page = backlog.list(shown, position);
        return HtmlResponses.page(200, Templates.outbox(shown, backlog.counts(), page,
                Pager.of(PAGE, position.isPresent(), page.next(), "status", shown.name()),
                AdminNotice.of(notice, target).orElse(null)));
    }

    @POST
    @Path("/{id}/retry")
    @Consumes(MediaType.APPLICATION_FORM_URLENCODED)
    @RolesAllowed(ConsoleUser.ADMIN)
    public Response retryNow(@PathParam("id") String id, @FormParam("reason") String typedReason) {
        long eventId = ConsoleRequestRejected.id(id, "outbox event");
        String reason = AdminReason.require(typedReason);
        if (!backlog.exists(eventId)) {
            throw ConsoleRequestRejected.notFound("There is no outbox event " + eventId + ".");
        }
        return audit.perform("retry-now", "outbox-event", String.valueOf(eventId), reason,
                AdminNotice.OUTBOX_ACTION_FAILED,
                () -> backlog.retryNow(eventId)).seeOther(PAGE, String.valueOf(eventId));
    }
}
