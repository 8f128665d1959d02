package dev.onceguard.console;

import io.quarkus.qute.CheckedTemplate;
import io.quarkus.qute.TemplateInstance;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;

/** {@code /console/conflicts}: keys reused with another payload: who, when, which key, both fingerprints. */
@Path("/console/conflicts")
@Produces(MediaType.TEXT_HTML)
@RolesAllowed({ConsoleUser.SUPPORT, ConsoleUser.ADMIN})
public class ConsoleConflictsResource {

    private static final String PAGE = "/console/conflicts";

    @CheckedTemplate
    static class Templates {
        static native TemplateInstance conflicts(KeyConflicts.Filter filter, KeyConflicts.Listing page, Pager pager);
    }

    private final KeyConflicts conflicts;

    public ConsoleConflictsResource(KeyConflicts conflicts) {
        this.conflicts = conflicts;
    }

    @GET
    public TemplateInstance conflicts(@QueryParam("user") String user, @QueryParam("key") String key,
                                      @QueryParam("after") String after) {
        KeyConflicts.Filter filter = KeyConflicts.Filter.of(user, key);
        KeyConflicts.Listing page = conflicts.list(filter, Cursor.parse(after));
        return Templates.conflicts(filter, page, Pager.of(PAGE, page.nextCursor(), "user", filter.user(), "key", filter.key()));
    }
}
