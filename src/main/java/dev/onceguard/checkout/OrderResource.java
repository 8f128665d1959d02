package dev.onceguard.checkout;

import dev.onceguard.idempotency.IdempotencyKey;
import dev.onceguard.idempotency.IdempotencyService;
import dev.onceguard.idempotency.IdempotentRequest;
import dev.onceguard.idempotency.IdempotentResponse;
import dev.onceguard.platform.Caller;
import dev.onceguard.platform.Problem;
import dev.onceguard.platform.ProblemException;
import dev.onceguard.platform.RequestIds;
import io.quarkus.security.Authenticated;
import io.smallrye.mutiny.Uni;
import io.vertx.core.http.HttpServerRequest;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import io.quarkus.runtime.annotations.RegisterForReflection;

@RegisterForReflection
@Path("/api/orders")
@Authenticated
@Produces(MediaType.APPLICATION_JSON)
public class OrderResource {

    static final int DEFAULT_PAGE = 20;
    static final int MAX_PAGE = 100;

    private final IdempotencyService idempotency;
    private final OrderService orders;
    private final OrderRows rows;
    private final Caller caller;

    public OrderResource(IdempotencyService idempotency, OrderService orders, OrderRows rows, Caller caller) {
        this.idempotency = idempotency;
        this.orders = orders;
        this.rows = rows;
        this.caller = caller;
    }

    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    public Uni<Response> create(@Context HttpServerRequest http, byte[] body) {
        String userId = caller.userId();
        IdempotentRequest<CreateOrderRequest> request = idempotency.request(OrderService.OPERATION, userId,
                IdempotencyKey.single(http.headers().getAll(IdempotencyKey.HEADER)), RequestIds.of(http), Map.of(), body,
                CreateOrderRequest.class, UnaryOperator.identity());
        return idempotency.execute(request, order -> orders.plan(userId, request.requestId(), order))
                .map(IdempotentResponse::toResponse);
    }

    public record OrderPage(List<OrderView> data, boolean hasMore, String nextAfter) {
    }

    @GET
    public OrderPage list(@QueryParam("limit") String limit, @QueryParam("after") String after) {
        int size = pageSize(limit);
        List<Order> page = rows.pageOf(caller.userId(), after, size + 1);
        boolean hasMore = page.size() > size;
        List<OrderView> data = page.stream().limit(size).map(OrderView::of).toList();
        return new OrderPage(data, hasMore, hasMore ? data.get(data.size() - 1).orderId() : null);
    }

    private static int pageSize(String limit) {
        if (limit == null) {
            return DEFAULT_PAGE;
        }
        try {
            int size = Integer.parseInt(limit);
            if (size >= 1 && size <= MAX_PAGE) {
                return size;
            }
        } catch (NumberFormatException ignored) {
            // reported below like any other out-of-range value
        }
        throw new ProblemException(Problem.validation(List.of(
                new Problem.FieldError("limit", "must be an integer from 1 to " + MAX_PAGE))));
    }
}
