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
import org.eclipse.microprofile.config.inject.ConfigProperty;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import io.quarkus.runtime.annotations.RegisterForReflection;

/**
 * {@code GET /console/users/{userId}}: every operation of one user, newest first, with the same cart under two keys
 * within {@code onceguard.console.double-submission-window} marked as a possible double submission (never blocked:
 * buying the same thing twice can be deliberate), and the user's newest orders.
 */
@RegisterForReflection
@Path("/console/users")
@Produces(MediaType.TEXT_HTML)
public class ConsoleUsersResource {

    static final int ORDERS_SHOWN = 10;
    static final int TURNED_AWAY_SHOWN = 20;

    @CheckedTemplate
    static class Templates {
        static native TemplateInstance user(String userId, String window, KeysetPage<OperationRow> page, Pager pager,
                                            List<OperationLists.UserOrder> orders, CustomerCharges.Charges charges,
                                            List<OperationLists.TurnedAway> turnedAway);
    }

    private final OperationLists lists;
    private final Duration window;
    private final CustomerCharges charges;

    public ConsoleUsersResource(OperationLists lists,
                                @ConfigProperty(name = "onceguard.console.double-submission-window") Duration window,
                                CustomerCharges charges) {
        this.lists = lists;
        this.window = window;
        this.charges = charges;
    }

    @GET
    @Path("/{userId}")
    public Response user(@PathParam("userId") String userId, @QueryParam("after") String after,
                         @QueryParam("format") String format, @QueryParam("from") String from,
                         @QueryParam("to") String to) {
        CustomerCharges.Period period = CustomerCharges.period(from, to);
        Optional<Cursor> position = Cursor.parse(after);
        if (CsvExport.wanted(format)) {
            return CsvExport.of("operations-of-user", OperationRow.CSV, at -> lists.ofUser(userId, at.orElse(null)));
        }
        KeysetPage<OperationRow> page = lists.ofUser(userId, position.orElse(null));
        KeysetPage<OperationRow> marked = new KeysetPage<>(lists.withDoubleSubmissions(page.rows(), window), page.next());
        return HtmlResponses.page(200, Templates.user(userId, Verdict.span(window), marked,
                Pager.of(ConsoleLinks.user(userId), position.isPresent(), page.next()),
                lists.ordersOf(userId, ORDERS_SHOWN), charges.of(userId, period),
                lists.turnedAwayOf(userId, TURNED_AWAY_SHOWN)));
    }
}
