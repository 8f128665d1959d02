package dev.onceguard.console;

import io.quarkus.qute.CheckedTemplate;
import io.quarkus.qute.TemplateInstance;
import io.quarkus.runtime.annotations.RegisterForReflection;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import org.eclipse.microprofile.config.inject.ConfigProperty;

import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Locale;

/**
 * The investigation pages:
 * <ul>
 * <li>{@code GET /console}: the last 24 hours at a glance, each number a link to the list behind it;</li>
 * <li>{@code GET /console/search?q=}: the search box of every console page. One thing found is answered with a
 * {@code 303} to its page; several are listed by kind; none says what was searched and where else to look;</li>
 * <li>{@code GET /console/operations}: idempotency records, filtered and keyset-paginated, newest first; and
 * {@code GET /console/operations/{id}}: the whole chain of one record with its verdict;</li>
 * <li>{@code GET /console/orders/{orderId}}: one order and every operation on it, the worst verdict first, with its
 * refunds and cancellation;</li>
 * <li>{@code GET /console/users/{userId}}: every operation of one user, newest first, with the same cart under two
 * keys within {@code onceguard.console.double-submission-window} marked as a possible double submission (never
 * blocked: buying the same thing twice can be deliberate), and the user's newest orders;</li>
 * <li>{@code GET /console/requests}: every logged request, newest first, by outcome and time;</li>
 * <li>{@code GET /console/payments?status=UNKNOWN}: unresolved payment attempts of one status, longest unchanged
 * first.</li>
 * </ul>
 */
@RegisterForReflection
@Path("/console")
@Produces(MediaType.TEXT_HTML)
public class ConsoleInvestigationResource {

    static final String REQUESTS = "/console/requests";
    static final int ORDERS_SHOWN = 10;
    static final int TURNED_AWAY_SHOWN = 20;

    @CheckedTemplate
    static class Templates {
        static native TemplateInstance overview(ActivityOverview.Overview overview, String requestsSince,
                                                long unknownMinutes);

        static native TemplateInstance search(String query, ConsoleSearch.Result result);

        static native TemplateInstance operations(OperationFilter filter, KeysetPage<OperationRow> page, Pager pager);

        static native TemplateInstance operation(OperationChain chain, CustomerCharges.Around otherCharges,
                                                 OrderResolutions.Resolution resolution);

        static native TemplateInstance order(OperationChains.OrderPage page, OperationChain chain,
                                             OrderResolutions.Resolution resolution);

        static native TemplateInstance user(String userId, String window, KeysetPage<OperationRow> page, Pager pager,
                                            List<OperationLists.UserOrder> orders, CustomerCharges.Charges charges,
                                            List<OperationLists.TurnedAway> turnedAway);

        static native TemplateInstance requests(RequestLogs.Filter filter, KeysetPage<RequestLogs.Row> page,
                                                Pager pager);

        static native TemplateInstance payments(String status, long count, KeysetPage<OperationChain.Payment> page,
                                                Pager pager);
    }

    private final ActivityOverview activity;
    private final ConsoleSearch search;
    private final OperationLists lists;
    private final OperationChains chains;
    private final RequestLogs requestLogs;
    private final CustomerCharges charges;
    private final OrderResolutions resolutions;
    private final Duration window;
    private final PaymentLists payments;

    public ConsoleInvestigationResource(ActivityOverview activity, ConsoleSearch search, OperationLists lists,
                                        OperationChains chains, RequestLogs requestLogs, CustomerCharges charges,
                                        OrderResolutions resolutions,
                                        @ConfigProperty(name = "onceguard.console.double-submission-window")
                                        Duration window, PaymentLists payments) {
        this.activity = activity;
        this.search = search;
        this.lists = lists;
        this.chains = chains;
        this.requestLogs = requestLogs;
        this.charges = charges;
        this.resolutions = resolutions;
        this.window = window;
        this.payments = payments;
    }

    @GET
    public TemplateInstance overview() {
        ActivityOverview.Overview overview = activity.read();
        return Templates.overview(overview,
                REQUESTS + "?from=" + OperationFilter.FILTER_TIME.format(overview.since()) + "&outcome=",
                ActivityOverview.UNKNOWN_TOO_LONG.toMinutes());
    }

    @GET
    @Path("/search")
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

    /** A filter value that is not valid answers 400 with the form and what was wrong; nothing is queried. */
    @GET
    @Path("/operations")
    public Response operations(@QueryParam("key") String key, @QueryParam("user") String user,
                               @QueryParam("order") String order, @QueryParam("status") String status,
                               @QueryParam("operation") String operation, @QueryParam("from") String from,
                               @QueryParam("to") String to, @QueryParam("after") String after,
                               @QueryParam("format") String format) {
        OperationFilter filter = OperationFilter.parse(key, user, order, status, operation, from, to, after);
        if (!filter.valid()) {
            return HtmlResponses.page(400, Templates.operations(filter, new KeysetPage<>(List.of(), null),
                    filter.pager(null)));
        }
        if (CsvExport.wanted(format)) {
            return CsvExport.of("operations", OperationRow.CSV, position -> lists.page(filter.at(position.orElse(null))));
        }
        KeysetPage<OperationRow> page = lists.page(filter);
        return HtmlResponses.page(200, Templates.operations(filter, page, filter.pager(page.next())));
    }

    @GET
    @Path("/operations/{id}")
    public TemplateInstance operation(@PathParam("id") String id) {
        long recordId = ConsoleRequestRejected.id(id, "operation");
        OperationChain chain = chains.load(recordId).orElseThrow(() -> ConsoleRequestRejected.notFound(
                "There is no idempotency record " + recordId + ". A finished record is removed by retention cleanup "
                        + "once it expires (24 h after it finished by default): search the operations list by key, "
                        + "user or order to see what is still kept."));
        return Templates.operation(chain, charges.around(chain.record().userId(),
                chain.record().createdAt(), chain.order() == null ? null : chain.order().orderId()),
                resolutions.of(chain));
    }

    @GET
    @Path("/orders/{orderId}")
    public TemplateInstance order(@PathParam("orderId") String orderId) {
        String id = ConsoleSearch.query(orderId);
        OperationChains.OrderPage page = chains.orderPage(id).orElseThrow(() -> ConsoleRequestRejected.notFound(
                "There is no order " + id + " with an operation still kept. Search the id in the box above: a "
                        + "payment, a key or a user id finds what is kept."));
        return Templates.order(page, page.chain(), resolutions.of(page.chain()));
    }

    @GET
    @Path("/users/{userId}")
    public Response user(@PathParam("userId") String userId, @QueryParam("after") String after,
                         @QueryParam("format") String format, @QueryParam("from") String from,
                         @QueryParam("to") String to) {
        CustomerCharges.Period period = CustomerCharges.period(from, to);
        return HtmlResponses.list(after, format, "operations-of-user", OperationRow.CSV,
                at -> lists.ofUser(userId, at.orElse(null)),
                (page, pager) -> Templates.user(userId, Verdict.span(window),
                        new KeysetPage<>(lists.withDoubleSubmissions(page.rows(), window), page.next()), pager,
                        lists.ordersOf(userId, ORDERS_SHOWN), charges.of(userId, period),
                        lists.turnedAwayOf(userId, TURNED_AWAY_SHOWN)), ConsoleLinks.user(userId));
    }

    @GET
    @Path("/requests")
    public Response requests(@QueryParam("outcome") String outcome, @QueryParam("from") String from,
                             @QueryParam("to") String to, @QueryParam("after") String after,
                             @QueryParam("format") String format) {
        RequestLogs.Filter filter = RequestLogs.Filter.of(outcome, from, to);
        return HtmlResponses.list(after, format, "requests", RequestLogs.CSV, at -> requestLogs.page(filter, at),
                (page, pager) -> Templates.requests(filter, page, pager), REQUESTS, filter.query());
    }

    @GET
    @Path("/payments")
    public Response payments(@QueryParam("status") String status, @QueryParam("after") String after,
                             @QueryParam("format") String format) {
        String shown = PaymentLists.status(status);
        return HtmlResponses.list(after, format, "payments-" + shown.toLowerCase(Locale.ROOT), PaymentLists.CSV,
                at -> payments.page(shown, at),
                (page, pager) -> Templates.payments(shown, payments.count(shown), page, pager), "/console/payments",
                "status", shown);
    }
}
