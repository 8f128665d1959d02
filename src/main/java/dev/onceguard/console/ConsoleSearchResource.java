package dev.onceguard.console;

import io.quarkus.qute.CheckedTemplate;
import io.quarkus.qute.TemplateInstance;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

import java.net.URI;
import io.quarkus.runtime.annotations.RegisterForReflection;

/**
 * {@code GET /console/search?q=}: the search box of every console page. One thing found is answered with a
 * {@code 303} to its page; several are listed by kind; none says what was searched and where else to look.
 */
@RegisterForReflection
@Path("/console/search")
@Produces(MediaType.TEXT_HTML)
public class ConsoleSearchResource {

    @CheckedTemplate
    static class Templates {
        static native TemplateInstance search(String query, ConsoleSearch.Result result);
    }

    private final ConsoleSearch search;

    public ConsoleSearchResource(ConsoleSearch search) {
        this.search = search;
    }

    @GET
    public Response search(@QueryParam("q") String typed) {
        String query = ConsoleSearch.query(typed);
        if (query == null) {
            return HtmlResponses.page(200, Templates.search(null, null));
        }
        ConsoleSearch.Result result = search.find(query);
        ConsoleSearch.Match single = result.single();
        if (single != null) {
            return Response.seeOther(URI.create(single.href())).build();
        }
        return HtmlResponses.page(200, Templates.search(query, result));
    }
}
