package dev.onceguard.console;

import io.quarkus.qute.CheckedTemplate;
import io.quarkus.qute.TemplateInstance;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

import java.util.List;
import java.util.Optional;
import io.quarkus.runtime.annotations.RegisterForReflection;

/**
 * {@code /console/audit}: every admin action taken in the console, newest first; {@code /console/audit/{id}}: one
 * entry, with every row of a bulk action and how it ended there.
 */
@RegisterForReflection
@Path("/console/audit")
@Produces(MediaType.TEXT_HTML)
@RolesAllowed({ConsoleUser.SUPPORT, ConsoleUser.ADMIN})
public class ConsoleAuditResource {

    @CheckedTemplate
    static class Templates {
        static native TemplateInstance audit(KeysetPage<AuditLog.Entry> page, Pager pager);

        static native TemplateInstance entry(AuditLog.Entry entry, List<AuditLog.Row> rows);
    }

    private final AuditLog log;

    public ConsoleAuditResource(AuditLog log) {
        this.log = log;
    }

    @GET
    public Response audit(@QueryParam("after") String after, @QueryParam("format") String format) {
        Optional<Cursor> position = Cursor.parse(after);
        if (CsvExport.wanted(format)) {
            return CsvExport.of("audit", AuditLog.CSV, log::list);
        }
        KeysetPage<AuditLog.Entry> page = log.list(position);
        return HtmlResponses.page(200, Templates.audit(page, Pager.of("/console/audit", position.isPresent(), page.next())));
    }

    @GET
    @Path("/{id}")
    public TemplateInstance entry(@PathParam("id") String id) {
        long auditId = ConsoleRequestRejected.id(id, "audit entry");
        AuditLog.Entry entry = log.entry(auditId).orElseThrow(() -> ConsoleRequestRejected.notFound(
                "There is no audit entry " + auditId + "."));
        return Templates.entry(entry, log.rows(entry));
    }
}
