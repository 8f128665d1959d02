package dev.onceguard.checkout;

import dev.onceguard.checkout.CatalogRows.CatalogPrice;
import dev.onceguard.platform.LogContext;
import dev.onceguard.idempotency.BusinessRefusal;
import dev.onceguard.idempotency.IdempotencyService;
import dev.onceguard.idempotency.LocalOperation;
import dev.onceguard.idempotency.StoredResponse;
import dev.onceguard.platform.Ids;
import dev.onceguard.platform.Problem;
import dev.onceguard.platform.ProblemException;
import dev.onceguard.platform.Timestamps;
import jakarta.enterprise.context.ApplicationScoped;

import java.math.BigDecimal;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** Creates orders: catalog prices, stock reservation, the order and its lines. Runs inside the engine's transaction. */
@ApplicationScoped
public class OrderService {

    /** The name this operation's records carry, in the console and the metrics. */
    public static final String OPERATION = "create-order";
    public static final String RESOURCE_TYPE = "order";

    private final IdempotencyService idempotency;
    private final Ids ids;
    private final CatalogRows catalogRows;
    private final OrderRows orderRows;

    public OrderService(IdempotencyService idempotency, Ids ids, CatalogRows catalogRows, OrderRows orderRows) {
        this.idempotency = idempotency;
        this.ids = ids;
        this.catalogRows = catalogRows;
        this.orderRows = orderRows;
    }

    /**
     * The order a request makes, priced from the catalog now; its writes (the stock reservation, the order and its
     * lines) run once the engine has claimed its record.
     */
    public LocalOperation.Plan plan(String userId, String requestId, CreateOrderRequest request) {
        Map<String, CatalogPrice> catalog = catalogRows.prices(
                request.items().stream().map(CreateOrderRequest.Item::productId).distinct().toList());
        checkAgainstCatalog(request, catalog);

        Instant now = Timestamps.now();
        String orderId = ids.next("ord");
        LogContext.put(LogContext.ORDER_ID, orderId);
        List<Order.Line> lines = request.items().stream()
                .map(item -> new Order.Line(item.productId(), item.quantity(), catalog.get(item.productId()).price()))
                .toList();
        BigDecimal total = lines.stream().map(l -> l.unitPrice().multiply(BigDecimal.valueOf(l.quantity())))
                .reduce(BigDecimal.ZERO, BigDecimal::add);
        Order.Status status = Order.Status.AWAITING_PAYMENT;

        OrderView view = new OrderView(orderId, status.name(),
                lines.stream().map(l -> new OrderView.Item(l.productId(), l.quantity(), OrderView.money(l.unitPrice())))
                        .toList(),
                OrderView.money(total), request.currency(), Timestamps.format(now));
        StoredResponse response = idempotency.jsonResponse(201, view, Map.of("Location", "/api/orders/" + orderId),
                RESOURCE_TYPE, orderId);
        return new LocalOperation.Plan(response, recordId -> {
            reserveStock(request, catalog);
            orderRows.insert(orderId, userId, status, total, request.currency(), requestId, recordId, now, lines);
        });
    }

    /** Unknown products and a currency other than the products' are invalid requests: 400, nothing stored. */
    private static void checkAgainstCatalog(CreateOrderRequest request, Map<String, CatalogPrice> catalog) {
        List<Problem.FieldError> errors = new ArrayList<>();
        for (int i = 0; i < request.items().size(); i++) {
            CatalogPrice product = catalog.get(request.items().get(i).productId());
            if (product == null) {
                errors.add(new Problem.FieldError("items[" + i + "].productId", "unknown product"));
            } else if (!product.currency().equals(request.currency())) {
                errors.add(new Problem.FieldError("currency", "must be " + product.currency() + ", the currency of "
                        + product.productId()));
            }
        }
        if (!errors.isEmpty()) {
            throw new ProblemException(Problem.validation(errors.stream().distinct().toList()));
        }
    }

    /**
     * Reserves limited stock product by product, in product id order so that two orders never wait on each other
     * in opposite orders. Not enough of one product refuses the whole order; the transaction undoes the rest.
     */
    private void reserveStock(CreateOrderRequest request, Map<String, CatalogPrice> catalog) {
        Map<String, Integer> wanted = new TreeMap<>();
        request.items().forEach(item -> wanted.merge(item.productId(), item.quantity(), Integer::sum));
        wanted.forEach((productId, quantity) -> {
            if (catalog.get(productId).limited() && !catalogRows.reserve(productId, quantity)) {
                throw new BusinessRefusal(Problem.of(409, "OUT_OF_STOCK", "Out of stock",
                        "Not enough stock of " + productId + " for " + quantity + " unit(s)."));
            }
        });
    }
}
