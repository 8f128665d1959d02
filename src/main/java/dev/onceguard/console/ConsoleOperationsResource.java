package dev.onceguard.console;

import io.quarkus.qute.CheckedTemplate;
import io.quarkus.qute.TemplateInstance;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

import java.util.List;
import java.util.Optional;

/**
 * {@code GET /console/operations}: idempotency records, filtered and keyset-paginated, newest first; and
 * {@code GET /console/operations/{id}}: the whole chain of one record with its verdict.
 */
@Path("/console/operations")
@Produces(MediaType.TEXT_HTML)
public class ConsoleOperationsResource {

    @CheckedTemplate
    static class Templates {
        static native TemplateInstance list(OperationFilter filter, OperationLists.Page page);

        static native TemplateInstance detail(OperationChain chain);

        static native TemplateInstance notFound(String id);
    }

    private final OperationLists lists;
    private final OperationChains chains;

    public ConsoleOperationsResource(OperationLists lists, OperationChains chains) {
        this.lists = lists;
        this.chains = chains;
    }

    /** A filter value that is not valid answers 400 with the form and what was wrong; nothing is queried. */
    @GET
    public Response list(@QueryParam("key") String key, @QueryParam("user") String user,
                         @QueryParam("order") String order, @QueryParam("status") String status,
                         @QueryParam("operation") String operation, @QueryParam("from") String from,
                         @QueryParam("to") String to, @QueryParam("after") String after) {
        OperationFilter filter = OperationFilter.parse(key, user, order, status, operation, from, to, after);
        if (!filter.valid()) {
            return HtmlResponses.page(400, Templates.list(filter, new OperationLists.Page(List.of(), null)));
        }
        return HtmlResponses.page(200, Templates.list(filter, lists.page(filter)));
    }

    @GET
    @Path("/{id}")
    public Response detail(@PathParam("id") String id) {
        Optional<OperationChain> chain = recordId(id).flatMap(chains::load);
        return chain.isPresent()
                ? HtmlResponses.page(200, Templates.detail(chain.get()))
                : HtmlResponses.page(404, Templates.notFound(id));
    }

    private static Optional<Long> recordId(String id) {
        try {
            return Optional.of(Long.parseLong(id));
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }
}
