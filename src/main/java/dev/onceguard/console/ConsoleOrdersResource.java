package dev.onceguard.console;

import io.quarkus.qute.CheckedTemplate;
import io.quarkus.qute.TemplateInstance;
import io.quarkus.runtime.annotations.RegisterForReflection;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;

/**
 * {@code GET /console/orders/{orderId}}: one order and every operation on it, the worst verdict first, with its refunds
 * and cancellation.
 */
@RegisterForReflection
@Path("/console/orders")
@Produces(MediaType.TEXT_HTML)
public class ConsoleOrdersResource {

    @CheckedTemplate
    static class Templates {
        static native TemplateInstance order(OrderPages.OrderPage page, OperationChain chain,
                                             OrderResolutions.Resolution resolution);
    }

    private final OrderPages orders;
    private final OrderResolutions resolutions;

    public ConsoleOrdersResource(OrderPages orders, OrderResolutions resolutions) {
        this.orders = orders;
        this.resolutions = resolutions;
    }

    @GET
    @Path("/{orderId}")
    public TemplateInstance order(@PathParam("orderId") String orderId) {
        String id = ConsoleSearch.query(orderId);
        OrderPages.OrderPage page = orders.load(id).orElseThrow(() -> ConsoleRequestRejected.notFound(
                "There is no order " + id + " with an operation still kept. Search the id in the box above: a "
                        + "payment, a key or a user id finds what is kept."));
        return Templates.order(page, page.chain(), resolutions.of(page.chain()));
    }
}
