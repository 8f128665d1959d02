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
import io.quarkus.runtime.annotations.RegisterForReflection;

/**
 * {@code GET /console/operations}: idempotency records, filtered and keyset-paginated, newest first; and
 * {@code GET /console/operations/{id}}: the whole chain of one record with its verdict.
 */
@RegisterForReflection
@Path("/console/operations")
@Produces(MediaType.TEXT_HTML)
public class ConsoleOperationsResource {

    @CheckedTemplate
    static class Templates {
        static native TemplateInstance list(OperationFilter filter, KeysetPage<OperationRow> page, Pager pager);

        static native TemplateInstance detail(OperationChain chain, RequestHistory history,
                                              CustomerCharges.Around otherCharges,
                                              OrderResolutions.Resolution resolution);
    }

    private final OperationLists lists;
    private final OperationChains chains;
    private final RequestLogs requestLogs;
    private final CustomerCharges charges;
    private final OrderResolutions resolutions;

    public ConsoleOperationsResource(OperationLists lists, OperationChains chains, RequestLogs requestLogs,
                                     CustomerCharges charges, OrderResolutions resolutions) {
        this.resolutions = resolutions;
        this.lists = lists;
        this.chains = chains;
        this.requestLogs = requestLogs;
        this.charges = charges;
    }

    /** A filter value that is not valid answers 400 with the form and what was wrong; nothing is queried. */
    @GET
    public Response list(@QueryParam("key") String key, @QueryParam("user") String user,
                         @QueryParam("order") String order, @QueryParam("status") String status,
                         @QueryParam("operation") String operation, @QueryParam("from") String from,
                         @QueryParam("to") String to, @QueryParam("after") String after,
                         @QueryParam("format") String format) {
        OperationFilter filter = OperationFilter.parse(key, user, order, status, operation, from, to, after);
        if (!filter.valid()) {
            return HtmlResponses.page(400, Templates.list(filter, new KeysetPage<>(List.of(), null), filter.pager(null)));
        }
        if (CsvExport.wanted(format)) {
            return CsvExport.of("operations", OperationRow.CSV, position -> lists.page(filter.at(position.orElse(null))));
        }
        KeysetPage<OperationRow> page = lists.page(filter);
        return HtmlResponses.page(200, Templates.list(filter, page, filter.pager(page.next())));
    }

    @GET
    @Path("/{id}")
    public TemplateInstance detail(@PathParam("id") String id) {
        long recordId = ConsoleRequestRejected.id(id, "operation");
        OperationChain chain = chains.load(recordId).orElseThrow(() -> ConsoleRequestRejected.notFound(
                "There is no idempotency record " + recordId + ". A finished record is removed by retention cleanup "
                        + "once it expires (24 h after it finished by default): search the operations list by key, "
                        + "user or order to see what is still kept."));
        return Templates.detail(chain, requestLogs.of(recordId), charges.around(chain.record().userId(),
                chain.record().createdAt(), chain.order() == null ? null : chain.order().orderId()),
                resolutions.of(chain));
    }
}
