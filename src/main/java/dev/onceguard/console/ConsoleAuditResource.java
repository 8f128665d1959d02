package dev.onceguard.console;

import io.quarkus.qute.CheckedTemplate;
import io.quarkus.qute.TemplateInstance;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;

import java.util.Optional;

/** {@code /console/audit}: every admin action taken in the console, newest first. */
@Path("/console/audit")
@Produces(MediaType.TEXT_HTML)
@RolesAllowed({ConsoleUser.SUPPORT, ConsoleUser.ADMIN})
public class ConsoleAuditResource {

    @CheckedTemplate
    static class Templates {
        static native TemplateInstance audit(KeysetPage<AuditLog.Entry> page, Pager pager);
    }

    private final AuditLog log;

    public ConsoleAuditResource(AuditLog log) {
        this.log = log;
    }

    @GET
    public TemplateInstance audit(@QueryParam("after") String after) {
        Optional<Cursor> position = Cursor.parse(after);
        KeysetPage<AuditLog.Entry> page = log.list(position);
        return Templates.audit(page, Pager.of("/console/audit", position.isPresent(), page.next()));
    }
}
