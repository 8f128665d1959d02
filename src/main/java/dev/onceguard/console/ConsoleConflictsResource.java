package dev.onceguard.console;

import io.quarkus.qute.CheckedTemplate;
import io.quarkus.qute.TemplateInstance;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

import java.util.Optional;
import io.quarkus.runtime.annotations.RegisterForReflection;

/** {@code /console/conflicts}: keys reused with another payload: who, when, which key, both fingerprints. */
@RegisterForReflection
@Path("/console/conflicts")
@Produces(MediaType.TEXT_HTML)
@RolesAllowed({ConsoleUser.SUPPORT, ConsoleUser.ADMIN})
public class ConsoleConflictsResource {

    private static final String PAGE = "/console/conflicts";

    @CheckedTemplate
    static class Templates {
        static native TemplateInstance conflicts(KeyConflicts.Filter filter, KeysetPage<KeyConflicts.Conflict> page, Pager pager);
    }

    private final KeyConflicts conflicts;

    public ConsoleConflictsResource(KeyConflicts conflicts) {
        this.conflicts = conflicts;
    }

    @GET
    public Response conflicts(@QueryParam("user") String user, @QueryParam("key") String key,
                              @QueryParam("after") String after, @QueryParam("format") String format) {
        KeyConflicts.Filter filter = KeyConflicts.Filter.of(user, key);
        Optional<Cursor> position = Cursor.parse(after);
        if (CsvExport.wanted(format)) {
            return CsvExport.of("conflicts", KeyConflicts.CSV, at -> conflicts.list(filter, at));
        }
        KeysetPage<KeyConflicts.Conflict> page = conflicts.list(filter, position);
        return HtmlResponses.page(200, Templates.conflicts(filter, page,
                Pager.of(PAGE, position.isPresent(), page.next(), "user", filter.user(), "key", filter.key())));
    }
}
