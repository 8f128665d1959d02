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

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * {@code GET /console/users/{userId}}: every operation of one user, newest first, with the same cart under two keys
 * within {@code onceguard.console.double-submission-window} marked as a possible double submission (never blocked:
 * buying the same thing twice can be deliberate), and the user's newest orders.
 */
@Path("/console/users")
@Produces(MediaType.TEXT_HTML)
public class ConsoleUsersResource {

    static final int ORDERS_SHOWN = 10;

    @CheckedTemplate
    static class Templates {
        static native TemplateInstance user(String userId, String userHref, String window, OperationLists.Page page, String nextPage,
                                            boolean paged, List<OperationLists.UserOrder> orders, String problem);
    }

    private final OperationLists lists;
    private final Duration window;

    public ConsoleUsersResource(OperationLists lists,
                                @ConfigProperty(name = "onceguard.console.double-submission-window") Duration window) {
        this.lists = lists;
        this.window = window;
    }

    @GET
    @Path("/{userId}")
    public Response user(@PathParam("userId") String userId, @QueryParam("after") String after) {
        boolean paged = after != null && !after.isBlank();
        Optional<KeysetCursor> cursor = paged ? KeysetCursor.parse(after.strip()) : Optional.empty();
        String userHref = ConsoleLinks.user(userId);
        String shownWindow = Verdict.span(window);
        List<OperationLists.UserOrder> orders = lists.ordersOf(userId, ORDERS_SHOWN);
        if (paged && cursor.isEmpty()) {
            return HtmlResponses.page(400, Templates.user(userId, userHref, shownWindow,
                    new OperationLists.Page(List.of(), null), null, true, orders,
                    "The page cursor \"" + after + "\" is not valid: start again from the first page."));
        }
        OperationLists.Page page = lists.ofUser(userId, cursor.orElse(null));
        OperationLists.Page marked = new OperationLists.Page(lists.withDoubleSubmissions(page.rows(), window), page.next());
        String nextPage = page.next() == null ? null
                : userHref + "?after=" + URLEncoder.encode(page.next().value(), StandardCharsets.UTF_8);
        return HtmlResponses.page(200, Templates.user(userId, userHref, shownWindow, marked, nextPage, paged, orders, null));
    }
}
