package dev.onceguard.console;

import dev.onceguard.platform.Cause;
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
import java.util.Set;
import java.util.TreeSet;
import io.quarkus.runtime.annotations.RegisterForReflection;

/**
 * {@code /console/webhooks}: the inbox, the last day's deliveries per provider, and "reprocess" of a FAILED, IGNORED
 * or PENDING_MATCH event.
 */
@RegisterForReflection
@Path("/console/webhooks")
@Produces(MediaType.TEXT_HTML)
@RolesAllowed({ConsoleUser.SUPPORT, ConsoleUser.ADMIN})
public class ConsoleWebhooksResource {

    private static final String PAGE = "/console/webhooks";

    @CheckedTemplate
    static class Templates {
        static native TemplateInstance webhooks(InboxEvents.Filter filter, Set<String> providers,
                                                InboxEvents.Summary summary, KeysetPage<InboxEvents.Event> page,
                                                Pager pager, AdminNotice.Shown notice);

        static native TemplateInstance event(WebhookEventPage.Page page);
    }

    private final InboxEvents events;
    private final ConsoleAudit audit;
    private final WebhookEventPage eventPage;

    public ConsoleWebhooksResource(InboxEvents events, ConsoleAudit audit, WebhookEventPage eventPage) {
        this.events = events;
        this.audit = audit;
        this.eventPage = eventPage;
    }

    @GET
    public Response webhooks(@QueryParam("status") String status, @QueryParam("provider") String provider,
                             @QueryParam("after") String after, @QueryParam("notice") String notice,
                             @QueryParam("target") String target, @QueryParam("format") String format) {
        InboxEvents.Filter filter = InboxEvents.Filter.of(status, provider);
        Optional<Cursor> position = Cursor.parse(after);
        if (CsvExport.wanted(format)) {
            return CsvExport.of("webhook-events", InboxEvents.CSV, at -> events.list(filter, at));
        }
        KeysetPage<InboxEvents.Event> page = events.list(filter, position);
        Set<String> providers = new TreeSet<>(events.providers());
        if (filter.provider() != null) {
            providers.add(filter.provider());
        }
        Pager pager = Pager.of(PAGE, position.isPresent(), page.next(), "status", filter.status(), "provider", filter.provider());
        return HtmlResponses.page(200, Templates.webhooks(filter, providers, events.summary(), page, pager,
                AdminNotice.of(notice, target).orElse(null)));
    }

    @GET
    @Path("/{id}")
    public TemplateInstance event(@PathParam("id") String id) {
        long inboxId = ConsoleRequestRejected.id(id, "webhook event");
        return Templates.event(eventPage.load(inboxId).orElseThrow(() -> ConsoleRequestRejected.notFound(
                "There is no webhook event " + inboxId + " in the inbox. Processed events are removed by retention "
                        + "cleanup after 30 days by default.")));
    }

    @POST
    @Path("/{id}/reprocess")
    @Consumes(MediaType.APPLICATION_FORM_URLENCODED)
    @RolesAllowed(ConsoleUser.ADMIN)
    public Response reprocess(@PathParam("id") String id, @FormParam("reason") String typedReason) {
        long eventId = ConsoleRequestRejected.id(id, "webhook event");
        String reason = AdminReason.require(typedReason);
        if (!events.exists(eventId)) {
            throw ConsoleRequestRejected.notFound("There is no webhook event " + eventId + " in the inbox.");
        }
        return audit.performIdentified("reprocess", "webhook-event", String.valueOf(eventId), reason,
                AdminNotice.WEBHOOK_FAILED_AGAIN, auditId -> events.reprocess(eventId, Cause.admin(auditId)))
                .seeOther(PAGE, String.valueOf(eventId));
    }
}
