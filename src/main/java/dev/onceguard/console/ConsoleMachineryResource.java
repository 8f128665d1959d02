package dev.onceguard.console;

import dev.onceguard.platform.Cause;
import io.quarkus.qute.CheckedTemplate;
import io.quarkus.qute.TemplateInstance;
import io.quarkus.runtime.annotations.RegisterForReflection;
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
import jakarta.ws.rs.core.UriBuilder;

import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The machinery pages, each with its admin actions:
 * <ul>
 * <li>{@code /console/stuck}: operations stuck in PROCESSING, with "release" and "send to reconciliation";</li>
 * <li>{@code /console/webhooks}: the inbox, the last day's deliveries per provider, and "reprocess" of a FAILED,
 * IGNORED or PENDING_MATCH event; {@code /console/webhooks/{id}}: one event;</li>
 * <li>{@code /console/outbox}: pending, retrying and dead outbox events, and "retry now" of a dead one;</li>
 * <li>{@code /console/jobs}: runs of the scheduled jobs, each job's last success, and "run now";</li>
 * <li>{@code /console/conflicts}: keys reused with another payload: who, when, which key, both fingerprints;</li>
 * <li>{@code /console/audit}: every admin action taken in the console, newest first; {@code /console/audit/{id}}: one
 * entry, with every row of a bulk action and how it ended there.</li>
 * </ul>
 * And {@code /console/bulk/...}: a list's row action on every row matching its filter. The GET is the preview (how many
 * rows match, which of them the action takes); the POST, with its CSRF token and a reason, runs it and shows its audit
 * entry, where every row's outcome is listed.
 */
@RegisterForReflection
@Path("/console")
@Produces(MediaType.TEXT_HTML)
@RolesAllowed({ConsoleUser.SUPPORT, ConsoleUser.ADMIN})
public class ConsoleMachineryResource {

    private static final String OPERATION = "idempotency-record";
    private static final String RELEASABLE = "stuck at recovery point started";
    private static final String RECONCILABLE = "stuck create-payment past recovery point started";
    private static final int MAX_REASON_LENGTH = 500;

    /** A hidden field of the bulk confirm form: the filter the preview was made for. */
    public record Field(String name, String value) {
    }

    @CheckedTemplate
    static class Templates {
        static native TemplateInstance stuck(KeysetPage<StuckOperations.Stuck> page, CappedCount stuckNow, Pager pager,
                                             AdminNotice.Shown notice, List<JobSwitches.Warning> jobWarnings);

        static native TemplateInstance webhooks(InboxEvents.Filter filter, Set<String> providers,
                                                InboxEvents.Summary summary, KeysetPage<InboxEvents.Event> page,
                                                Pager pager, AdminNotice.Shown notice);

        static native TemplateInstance event(InboxEvents.Page page);

        static native TemplateInstance outbox(OutboxBacklog.Shown shown, OutboxBacklog.Counts counts,
                                              KeysetPage<OutboxBacklog.Event> page, Pager pager, AdminNotice.Shown notice);

        static native TemplateInstance jobs(String job, List<JobSwitches.LastRun> lastRuns,
                                            KeysetPage<JobHistory.Run> page, Pager pager, AdminNotice.Shown notice);

        static native TemplateInstance conflicts(KeyConflicts.Filter filter, KeysetPage<KeyConflicts.Conflict> page, Pager pager);

        static native TemplateInstance audit(KeysetPage<AuditLog.Entry> page, Pager pager);

        static native TemplateInstance entry(AuditLog.Entry entry, List<AuditLog.Row> rows);

        static native TemplateInstance preview(BulkActions.Action action, String filter, String back,
                                               BulkActions.Selection selection, List<Field> fields);
    }

    private final StuckOperations stuck;
    private final JobSwitches jobSwitches;
    private final InboxEvents events;
    private final OutboxBacklog backlog;
    private final JobHistory history;
    private final KeyConflicts conflicts;
    private final AuditLog log;
    private final ConsoleAudit audit;
    private final BulkActions bulk;

    public ConsoleMachineryResource(StuckOperations stuck, JobSwitches jobSwitches, InboxEvents events,
                                    OutboxBacklog backlog, JobHistory history, KeyConflicts conflicts, AuditLog log,
                                    ConsoleAudit audit, BulkActions bulk) {
        this.stuck = stuck;
        this.jobSwitches = jobSwitches;
        this.events = events;
        this.backlog = backlog;
        this.history = history;
        this.conflicts = conflicts;
        this.log = log;
        this.audit = audit;
        this.bulk = bulk;
    }

    @GET
    @Path("/stuck")
    public Response stuck(@QueryParam("after") String after, @QueryParam("notice") String notice,
                          @QueryParam("target") String target, @QueryParam("format") String format) {
        return HtmlResponses.list(after, format, "stuck", StuckOperations.CSV, stuck::list,
                (page, pager) -> Templates.stuck(page, stuck.count(), pager,
                        AdminNotice.of(notice, target), jobSwitches.recoveryWarnings()), "/console/stuck");
    }

    @POST
    @Path("/stuck/{id}/release")
    @Consumes(MediaType.APPLICATION_FORM_URLENCODED)
    @RolesAllowed(ConsoleUser.ADMIN)
    public Response release(@PathParam("id") String id, @FormParam("reason") String typedReason) {
        long recordId = ConsoleRequestRejected.id(id, "operation");
        return audit.perform("release", OPERATION, String.valueOf(recordId), reason(typedReason),
                AdminNotice.OPERATION_ACTION_FAILED, auditId -> stuck.release(recordId))
                .seeOther("/console/stuck", String.valueOf(recordId));
    }

    @POST
    @Path("/stuck/{id}/reconcile")
    @Consumes(MediaType.APPLICATION_FORM_URLENCODED)
    @RolesAllowed(ConsoleUser.ADMIN)
    public Response sendToReconciliation(@PathParam("id") String id, @FormParam("reason") String typedReason) {
        long recordId = ConsoleRequestRejected.id(id, "operation");
        return audit.perform("send-to-reconciliation", OPERATION, String.valueOf(recordId), reason(typedReason),
                AdminNotice.OPERATION_ACTION_FAILED, auditId -> stuck.sendToReconciliation(recordId, Cause.admin(auditId)))
                .seeOther("/console/stuck", String.valueOf(recordId));
    }

    @GET
    @Path("/webhooks")
    public Response webhooks(@QueryParam("status") String status, @QueryParam("provider") String provider,
                             @QueryParam("after") String after, @QueryParam("notice") String notice,
                             @QueryParam("target") String target, @QueryParam("format") String format) {
        InboxEvents.Filter filter = InboxEvents.Filter.of(status, provider);
        return HtmlResponses.list(after, format, "webhook-events", InboxEvents.CSV, at -> events.list(filter, at),
                (page, pager) -> {
                    Set<String> providers = events.providers();
                    if (filter.provider() != null) {
                        providers.add(filter.provider());
                    }
                    return Templates.webhooks(filter, providers, events.summary(), page, pager,
                            AdminNotice.of(notice, target));
                }, "/console/webhooks", "status", filter.status(), "provider", filter.provider());
    }

    @GET
    @Path("/webhooks/{id}")
    public TemplateInstance event(@PathParam("id") String id) {
        long inboxId = ConsoleRequestRejected.id(id, "webhook event");
        return Templates.event(events.page(inboxId).orElseThrow(() -> ConsoleRequestRejected.notFound(
                "There is no webhook event " + inboxId + " in the inbox. Processed events are removed by retention "
                        + "cleanup after 30 days by default.")));
    }

    @POST
    @Path("/webhooks/{id}/reprocess")
    @Consumes(MediaType.APPLICATION_FORM_URLENCODED)
    @RolesAllowed(ConsoleUser.ADMIN)
    public Response reprocess(@PathParam("id") String id, @FormParam("reason") String typedReason) {
        long eventId = ConsoleRequestRejected.id(id, "webhook event");
        String reason = reason(typedReason);
        if (!events.exists(eventId)) {
            throw ConsoleRequestRejected.notFound("There is no webhook event " + eventId + " in the inbox.");
        }
        return audit.perform("reprocess", "webhook-event", String.valueOf(eventId), reason,
                AdminNotice.WEBHOOK_FAILED_AGAIN, auditId -> events.reprocess(eventId, Cause.admin(auditId)))
                .seeOther("/console/webhooks", String.valueOf(eventId));
    }

    @GET
    @Path("/outbox")
    public Response outbox(@QueryParam("status") String status, @QueryParam("after") String after,
                           @QueryParam("notice") String notice, @QueryParam("target") String target,
                           @QueryParam("format") String format) {
        OutboxBacklog.Shown shown = OutboxBacklog.Shown.of(status);
        return HtmlResponses.list(after, format, "outbox-" + shown.name().toLowerCase(Locale.ROOT), OutboxBacklog.CSV,
                at -> backlog.list(shown, at), (page, pager) -> Templates.outbox(shown, backlog.counts(), page, pager,
                        AdminNotice.of(notice, target)), "/console/outbox", "status", shown.name());
    }

    @POST
    @Path("/outbox/{id}/retry")
    @Consumes(MediaType.APPLICATION_FORM_URLENCODED)
    @RolesAllowed(ConsoleUser.ADMIN)
    public Response retryNow(@PathParam("id") String id, @FormParam("reason") String typedReason) {
        long eventId = ConsoleRequestRejected.id(id, "outbox event");
        String reason = reason(typedReason);
        if (!backlog.exists(eventId)) {
            throw ConsoleRequestRejected.notFound("There is no outbox event " + eventId + ".");
        }
        return audit.perform("retry-now", "outbox-event", String.valueOf(eventId), reason,
                AdminNotice.OUTBOX_ACTION_FAILED,
                auditId -> backlog.retryNow(eventId)).seeOther("/console/outbox", String.valueOf(eventId));
    }

    @GET
    @Path("/jobs")
    public Response jobs(@QueryParam("job") String job, @QueryParam("after") String after,
                         @QueryParam("notice") String notice, @QueryParam("target") String target,
                         @QueryParam("format") String format) {
        String shown = JobHistory.job(job);
        return HtmlResponses.list(after, format, "job-runs", JobHistory.CSV, at -> history.list(shown, at),
                (page, pager) -> Templates.jobs(shown, jobSwitches.lastRuns(), page, pager,
                        AdminNotice.of(notice, target)), "/console/jobs", "job", shown);
    }

    @POST
    @Path("/jobs/{job}/run")
    @Consumes(MediaType.APPLICATION_FORM_URLENCODED)
    @RolesAllowed(ConsoleUser.ADMIN)
    public Response runNow(@PathParam("job") String job, @FormParam("reason") String typedReason) {
        if (!JobHistory.JOBS.contains(job)) {
            throw ConsoleRequestRejected.notFound("There is no job of that name; the jobs are "
                    + String.join(", ", JobHistory.JOBS) + ".");
        }
        return audit.perform("run-now", "job", job, reason(typedReason), AdminNotice.JOB_FAILED,
                auditId -> history.runNow(job)).seeOther("/console/jobs", job);
    }

    @GET
    @Path("/conflicts")
    public Response conflicts(@QueryParam("user") String user, @QueryParam("key") String key,
                              @QueryParam("after") String after, @QueryParam("format") String format) {
        KeyConflicts.Filter filter = KeyConflicts.Filter.of(user, key);
        return HtmlResponses.list(after, format, "conflicts", KeyConflicts.CSV, at -> conflicts.list(filter, at),
                (page, pager) -> Templates.conflicts(filter, page, pager),
                "/console/conflicts", "user", filter.user(), "key", filter.key());
    }

    @GET
    @Path("/audit")
    public Response audit(@QueryParam("after") String after, @QueryParam("format") String format) {
        return HtmlResponses.list(after, format, "audit", AuditLog.CSV, log::list, Templates::audit, "/console/audit");
    }

    @GET
    @Path("/audit/{id}")
    public TemplateInstance entry(@PathParam("id") String id) {
        long auditId = ConsoleRequestRejected.id(id, "audit entry");
        AuditLog.Entry entry = log.entry(auditId).orElseThrow(() -> ConsoleRequestRejected.notFound(
                "There is no audit entry " + auditId + "."));
        return Templates.entry(entry, log.rows(entry));
    }

    @GET
    @Path("/bulk/webhooks/reprocess")
    @RolesAllowed(ConsoleUser.ADMIN)
    public Response previewReprocess(@QueryParam("status") String status, @QueryParam("provider") String provider) {
        InboxEvents.Filter filter = reprocessable(status, provider);
        List<Field> fields = filter.provider() == null ? List.of(new Field("status", filter.status()))
                : List.of(new Field("status", filter.status()), new Field("provider", filter.provider()));
        UriBuilder back = UriBuilder.fromPath("/console/webhooks");
        fields.forEach(field -> back.queryParam(field.name(), field.value()));
        return preview(BulkActions.Action.REPROCESS_WEBHOOKS, describe(filter), back.build().toString(),
                bulk.webhookEvents(filter.status(), filter.provider()), fields);
    }

    @POST
    @Path("/bulk/webhooks/reprocess")
    @Consumes(MediaType.APPLICATION_FORM_URLENCODED)
    @RolesAllowed(ConsoleUser.ADMIN)
    public Response bulkReprocess(@FormParam("status") String status, @FormParam("provider") String provider,
                              @FormParam("reason") String typedReason) {
        InboxEvents.Filter filter = reprocessable(status, provider);
        return shown(bulk.run(BulkActions.Action.REPROCESS_WEBHOOKS, describe(filter), reason(typedReason),
                bulk.webhookEvents(filter.status(), filter.provider()), events::reprocess));
    }

    @GET
    @Path("/bulk/outbox/retry")
    @RolesAllowed(ConsoleUser.ADMIN)
    public Response previewRetry() {
        return preview(BulkActions.Action.RETRY_DEAD_OUTBOX, "status DEAD", "/console/outbox?status=DEAD",
                bulk.deadOutboxEvents(), List.of());
    }

    @POST
    @Path("/bulk/outbox/retry")
    @Consumes(MediaType.APPLICATION_FORM_URLENCODED)
    @RolesAllowed(ConsoleUser.ADMIN)
    public Response bulkRetry(@FormParam("reason") String typedReason) {
        return shown(bulk.run(BulkActions.Action.RETRY_DEAD_OUTBOX, "status DEAD", reason(typedReason),
                bulk.deadOutboxEvents(), (id, cause) -> backlog.retryNow(id)));
    }

    @GET
    @Path("/bulk/stuck/release")
    @RolesAllowed(ConsoleUser.ADMIN)
    public Response previewRelease() {
        return preview(BulkActions.Action.RELEASE_STUCK, RELEASABLE, "/console/stuck", bulk.releasableStuck(), List.of());
    }

    @POST
    @Path("/bulk/stuck/release")
    @Consumes(MediaType.APPLICATION_FORM_URLENCODED)
    @RolesAllowed(ConsoleUser.ADMIN)
    public Response bulkRelease(@FormParam("reason") String typedReason) {
        return shown(bulk.run(BulkActions.Action.RELEASE_STUCK, RELEASABLE, reason(typedReason),
                bulk.releasableStuck(), (id, cause) -> stuck.release(id)));
    }

    @GET
    @Path("/bulk/stuck/reconcile")
    @RolesAllowed(ConsoleUser.ADMIN)
    public Response previewReconcile() {
        return preview(BulkActions.Action.RECONCILE_STUCK, RECONCILABLE, "/console/stuck", bulk.reconcilableStuck(),
                List.of());
    }

    @POST
    @Path("/bulk/stuck/reconcile")
    @Consumes(MediaType.APPLICATION_FORM_URLENCODED)
    @RolesAllowed(ConsoleUser.ADMIN)
    public Response bulkReconcile(@FormParam("reason") String typedReason) {
        return shown(bulk.run(BulkActions.Action.RECONCILE_STUCK, RECONCILABLE, reason(typedReason),
                bulk.reconcilableStuck(), stuck::sendToReconciliation));
    }

    /**
     * Why an admin acted, as the operator typed it, trimmed: every admin action needs one, kept in its audit entry.
     * An action without a reason, or with one the audit log cannot keep whole, is refused before it does anything: a
     * 400 page that says what is wrong when it is missing, longer than the audit log keeps, or holds a character
     * PostgreSQL cannot store.
     */
    private static String reason(String typed) {
        String reason = typed == null ? "" : typed.strip();
        if (reason.isEmpty()) {
            throw ConsoleRequestRejected.badRequest("Every admin action needs a reason: say why you are taking it. "
                    + "Nothing was done.");
        }
        if (reason.indexOf('\u0000') >= 0) {
            throw ConsoleRequestRejected.badRequest("A reason cannot contain a NUL character, which the audit log cannot "
                    + "store. Nothing was done.");
        }
        if (reason.codePointCount(0, reason.length()) > MAX_REASON_LENGTH) {
            throw ConsoleRequestRejected.badRequest("A reason is at most " + MAX_REASON_LENGTH
                    + " characters; this one has " + reason.codePointCount(0, reason.length()) + ". Nothing was done.");
        }
        return reason;
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
