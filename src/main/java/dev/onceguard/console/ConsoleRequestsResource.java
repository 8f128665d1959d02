package dev.onceguard.console;

import io.quarkus.qute.CheckedTemplate;
import io.quarkus.qute.TemplateInstance;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

import java.util.List;
import java.util.Optional;
import io.quarkus.runtime.annotations.RegisterForReflection;

/** {@code GET /console/requests}: every logged request, newest first, by outcome and time. */
@RegisterForReflection
@Path("/console/requests")
@Produces(MediaType.TEXT_HTML)
public class ConsoleRequestsResource {

    static final String PAGE = "/console/requests";
    private static final List<CsvExport.Column<RequestLogList.Row>> CSV = List.of(
            new CsvExport.Column<>("received_at", RequestLogList.Row::receivedAt),
            new CsvExport.Column<>("request_id", RequestLogList.Row::requestId),
            new CsvExport.Column<>("client_request_id", RequestLogList.Row::clientRequestId),
            new CsvExport.Column<>("outcome", RequestLogList.Row::outcome),
            new CsvExport.Column<>("http_status", RequestLogList.Row::httpStatus),
            new CsvExport.Column<>("record_id", RequestLogList.Row::recordId),
            new CsvExport.Column<>("idempotency_key", RequestLogList.Row::key),
            new CsvExport.Column<>("user_id", RequestLogList.Row::userId),
            new CsvExport.Column<>("operation", RequestLogList.Row::operation));

    @CheckedTemplate
    static class Templates {
        static native TemplateInstance requests(RequestLogList.Filter filter, KeysetPage<RequestLogList.Row> page,
                                                Pager pager);
    }

    private final RequestLogList requests;

    public ConsoleRequestsResource(RequestLogList requests) {
        this.requests = requests;
    }

    @GET
    public Response requests(@QueryParam("outcome") String outcome, @QueryParam("from") String from,
                             @QueryParam("to") String to, @QueryParam("after") String after,
                             @QueryParam("format") String format) {
        RequestLogList.Filter filter = RequestLogList.Filter.of(outcome, from, to);
        Optional<Cursor> position = Cursor.parse(after);
        if (CsvExport.wanted(format)) {
            return CsvExport.of("requests", CSV, at -> requests.page(filter, at));
        }
        KeysetPage<RequestLogList.Row> page = requests.page(filter, position);
        return HtmlResponses.page(200, Templates.requests(filter, page,
                Pager.of(PAGE, position.isPresent(), page.next(), filter.query())));
    }
}
