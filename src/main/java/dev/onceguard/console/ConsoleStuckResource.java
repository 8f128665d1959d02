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

import java.util.List;
import java.util.Optional;
import io.quarkus.runtime.annotations.RegisterForReflection;

/** {@code /console/stuck}: operations stuck in PROCESSING, with the admin actions "release" and "send to reconciliation". */
@RegisterForReflection
@Path("/console/stuck")
@Produces(MediaType.TEXT_HTML)
@RolesAllowed({ConsoleUser.SUPPORT, ConsoleUser.ADMIN})
public class ConsoleStuckResource {

    private static final String PAGE = "/console/stuck";
    private static final String TARGET = "idempotency-record";

    @CheckedTemplate
    static class Templates {
        static native TemplateInstance stuck(KeysetPage<StuckOperations.Stuck> page, CappedCount stuckNow, Pager pager,
                                             AdminNotice.Shown notice, List<JobSwitches.Warning> jobWarnings);
    }

    private final StuckOperations stuck;
    private final ConsoleAudit audit;
    private final JobSwitches jobSwitches;

    public ConsoleStuckResource(StuckOperations stuck, ConsoleAudit audit, JobSwitches jobSwitches) {
        this.stuck = stuck;
        this.audit = audit;
        this.jobSwitches = jobSwitches;
    }

    @GET
    public Response stuck(@QueryParam("after") String after, @QueryParam("notice") String notice,
                          @QueryParam("target") String target, @QueryParam("format") String format) {
        Optional<Cursor> position = Cursor.parse(after);
        if (CsvExport.wanted(format)) {
            return CsvExport.of("stuck", StuckOperations.CSV, stuck::list);
        }
        KeysetPage<StuckOperations.Stuck> page = stuck.list(position);
        return HtmlResponses.page(200, Templates.stuck(page, stuck.count(), Pager.of(PAGE, position.isPresent(), page.next()),
                AdminNotice.of(notice, target).orElse(null), jobSwitches.recoveryWarnings()));
    }

    @POST
    @Path("/{id}/release")
    @Consumes(MediaType.APPLICATION_FORM_URLENCODED)
    @RolesAllowed(ConsoleUser.ADMIN)
    public Response release(@PathParam("id") String id, @FormParam("reason") String typedReason) {
        long recordId = ConsoleRequestRejected.id(id, "operation");
        String reason = AdminReason.require(typedReason);
        return audit.perform("release", TARGET, String.valueOf(recordId), reason, AdminNotice.OPERATION_ACTION_FAILED,
                () -> stuck.release(recordId)).seeOther(PAGE, String.valueOf(recordId));
    }

    @POST
    @Path("/{id}/reconcile")
    @Consumes(MediaType.APPLICATION_FORM_URLENCODED)
    @RolesAllowed(ConsoleUser.ADMIN)
    public Response sendToReconciliation(@PathParam("id") String id, @FormParam("reason") String typedReason) {
        long recordId = ConsoleRequestRejected.id(id, "operation");
        String reason = AdminReason.require(typedReason);
        return audit.performIdentified("send-to-reconciliation", TARGET, String.valueOf(recordId), reason,
                AdminNotice.OPERATION_ACTION_FAILED, auditId -> stuck.sendToReconciliation(recordId, Cause.admin(auditId)))
                .seeOther(PAGE, String.valueOf(recordId));
    }
}
