package dev.onceguard.console;

import io.quarkus.qute.CheckedTemplate;
import io.quarkus.qute.TemplateInstance;
import io.quarkus.runtime.annotations.RegisterForReflection;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.FormParam;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriBuilder;

import java.util.ArrayList;
import java.util.List;

/**
 * {@code /console/bulk/...}: a list's row action on every row matching its filter. The GET is the preview (how many
 * rows match, which of them the action takes); the POST, with its CSRF token and a reason, runs it and shows its audit
 * entry, where every row's outcome is listed.
 */
@RegisterForReflection
@Path("/console/bulk")
@Produces(MediaType.TEXT_HTML)
@RolesAllowed(ConsoleUser.ADMIN)
public class ConsoleBulkResource {

    private static final String RELEASABLE = "stuck at recovery point started";
    private static final String RECONCILABLE = "stuck create-payment past recovery point started";

    /** A hidden field of the confirm form: the filter the preview was made for. */
    public record Field(String name, String value) {
    }

    @CheckedTemplate
    static class Templates {
        static native TemplateInstance preview(BulkActions.Action action, String filter, String back,
                                               BulkActions.Selection selection, List<Field> fields);
    }

    private final BulkActions bulk;
    private final InboxEvents events;
    private final OutboxBacklog backlog;
    private final StuckOperations stuck;

    public ConsoleBulkResource(BulkActions bulk, InboxEvents events, OutboxBacklog backlog, StuckOperations stuck) {
        this.bulk = bulk;
        this.events = events;
        this.backlog = backlog;
        this.stuck = stuck;
    }

    @GET
    @Path("/webhooks/reprocess")
    public Response previewReprocess(@QueryParam("status") String status, @QueryParam("provider") String provider) {
        InboxEvents.Filter filter = reprocessable(status, provider);
        List<Field> fields = new ArrayList<>(List.of(new Field("status", filter.status())));
        UriBuilder back = UriBuilder.fromPath("/console/webhooks").queryParam("status", filter.status());
        if (filter.provider() != null) {
            fields.add(new Field("provider", filter.provider()));
            back.queryParam("provider", filter.provider());
        }
        return preview(BulkActions.Action.REPROCESS_WEBHOOKS, describe(filter), back.build().toString(),
                bulk.webhookEvents(filter.status(), filter.provider()), fields);
    }

    @POST
    @Path("/webhooks/reprocess")
    @Consumes(MediaType.APPLICATION_FORM_URLENCODED)
    public Response reprocess(@FormParam("status") String status, @FormParam("provider") String provider,
                              @FormParam("reason") String typedReason) {
        InboxEvents.Filter filter = reprocessable(status, provider);
        String reason = AdminReason.require(typedReason);
        return shown(bulk.run(BulkActions.Action.REPROCESS_WEBHOOKS, describe(filter), reason,
                bulk.webhookEvents(filter.status(), filter.provider()), events::reprocess));
    }

    @GET
    @Path("/outbox/retry")
    public Response previewRetry() {
        return preview(BulkActions.Action.RETRY_DEAD_OUTBOX, "status DEAD", "/console/outbox?status=DEAD",
                bulk.deadOutboxEvents(), List.of());
    }

    @POST
    @Path("/outbox/retry")
    @Consumes(MediaType.APPLICATION_FORM_URLENCODED)
    public Response retry(@FormParam("reason") String typedReason) {
        String reason = AdminReason.require(typedReason);
        return shown(bulk.run(BulkActions.Action.RETRY_DEAD_OUTBOX, "status DEAD", reason, bulk.deadOutboxEvents(),
                (id, cause) -> backlog.retryNow(id)));
    }

    @GET
    @Path("/stuck/release")
    public Response previewRelease() {
        return preview(BulkActions.Action.RELEASE_STUCK, RELEASABLE, "/console/stuck", bulk.releasableStuck(), List.of());
    }

    @POST
    @Path("/stuck/release")
    @Consumes(MediaType.APPLICATION_FORM_URLENCODED)
    public Response release(@FormParam("reason") String typedReason) {
        String reason = AdminReason.require(typedReason);
        return shown(bulk.run(BulkActions.Action.RELEASE_STUCK, RELEASABLE, reason, bulk.releasableStuck(),
                (id, cause) -> stuck.release(id)));
    }

    @GET
    @Path("/stuck/reconcile")
    public Response previewReconcile() {
        return preview(BulkActions.Action.RECONCILE_STUCK, RECONCILABLE, "/console/stuck", bulk.reconcilableStuck(),
                List.of());
    }

    @POST
    @Path("/stuck/reconcile")
    @Consumes(MediaType.APPLICATION_FORM_URLENCODED)
    public Response reconcile(@FormParam("reason") String typedReason) {
        String reason = AdminReason.require(typedReason);
        return shown(bulk.run(BulkActions.Action.RECONCILE_STUCK, RECONCILABLE, reason, bulk.reconcilableStuck(),
                stuck::sendToReconciliation));
    }

    private static InboxEvents.Filter reprocessable(String status, String provider) {
        InboxEvents.Filter filter = InboxEvents.Filter.of(status, provider);
        if (filter.status() == null || !InboxEvents.REPROCESSABLE.contains(filter.status())) {
            throw ConsoleRequestRejected.badRequest("A bulk reprocess acts on one status: FAILED, IGNORED or PENDING_MATCH.");
        }
        return filter;
    }

    private static String describe(InboxEvents.Filter filter) {
        return "status " + filter.status() + (filter.provider() == null ? "" : ", provider " + filter.provider());
    }

    private static Response preview(BulkActions.Action action, String filter, String back,
                                    BulkActions.Selection selection, List<Field> fields) {
        return HtmlResponses.page(200, Templates.preview(action, filter, back, selection, fields));
    }

    /** Post/Redirect/Get to the action's audit entry, which lists every row's outcome. */
    private static Response shown(BulkActions.Done done) {
        return Response.seeOther(UriBuilder.fromPath("/console/audit/" + done.auditId()).build()).build();
    }
}
