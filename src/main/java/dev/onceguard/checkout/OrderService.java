package dev.onceguard.checkout;

import dev.onceguard.checkout.CatalogRows.CatalogPrice;
import dev.onceguard.platform.LogContext;
import dev.onceguard.idempotency.BusinessRefusal;
import dev.onceguard.idempotency.ClaimWrites;
import dev.onceguard.idempotency.IdempotencyService;
import dev.onceguard.idempotency.StoredResponses;
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
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.stream.Collectors;

/** Creates orders: catalog prices, stock reservation, the order and its lines, planned for the engine's claim. */
@ApplicationScoped
public class OrderService {

    /** The name this operation's records carry, in the console and the metrics. */
    public static final String OPERATION = "create-order";
    public static final String RESOURCE_TYPE = "order";

    private final IdempotencyService idempotency;
    private final StoredResponses responses;
    private final Ids ids;
    private final CatalogCache catalogCache;
    private final CatalogRows catalogRows;
    private final OrderRows orderRows;
    private final CheckoutConfig config;

    public OrderService(IdempotencyService idempotency, StoredResponses responses, Ids ids, CatalogCache catalogCache,
                        CatalogRows catalogRows, OrderRows orderRows, CheckoutConfig config) {
        this.idempotency = idempotency;
        this.responses = responses;
        this.ids = ids;
        this.catalogCache = catalogCache;
        this.catalogRows = catalogRows;
        this.orderRows = orderRows;
        this.config = config;
    }

    /**
     * The order a request makes, priced from the catalog entries this replica keeps ({@link CatalogCache}); its writes
     * (the stock reservation, the order and its lines) are made by the statement that claims its record, and only if
     * those entries are still the catalog's then.
     */
    public LocalOperation.Plan plan(String userId, String requestId, CreateOrderRequest request) {
        List<String> productIds = request.items().stream().map(CreateOrderRequest.Item::productId).distinct().toList();
        Map<String, CatalogPrice> catalog = catalogEntriesFor(request, productIds);

        Instant now = Timestamps.now();
        String orderId = ids.next("ord");
        LogContext.put(LogContext.ORDER_ID, orderId);
        List<Order.Line> lines = request.items().stream()
                .map(item -> new Order.Line(item.productId(), item.quantity(), catalog.get(item.productId()).price()))
                .toList();
        BigDecimal total = lines.stream().map(l -> l.unitPrice().multiply(BigDecimal.valueOf(l.quantity())))
                .reduce(BigDecimal.ZERO, BigDecimal::add);
        Order.Status status = Order.Status.AWAITING_PAYMENT;

        StoredResponse response = responses.json(201, OrderView.of(new Order(orderId, userId, status, total,
                request.currency(), now, lines)), Map.of("Location", "/api/orders/" + orderId), RESOURCE_TYPE, orderId);
        return new LocalOperation.Plan(response, withStockTaken(request, catalog,
                orderRows.inserting(orderId, userId, status, total, request.currency(), requestId, now, lines)),
                catalogRows.unchanged(catalog.values(), () -> catalogCache.forget(productIds)));
    }

    /**
     * The catalog entries of the order's products. Unknown products and a currency other than the products' make an
     * invalid request (400, nothing stored), and so do more units of one product than one order may hold, decided on
     * the catalog as the database has it now, never on an entry kept from before.
     */
    private Map<String, CatalogPrice> catalogEntriesFor(CreateOrderRequest request, List<String> productIds) {
        Map<String, CatalogPrice> kept = catalogCache.prices(productIds);
        if (catalogErrors(request, kept).isEmpty() && quantitiesOverCap(request, kept).isEmpty()) {
            return kept;
        }
        catalogCache.forget(productIds);
        Map<String, CatalogPrice> current = catalogCache.prices(productIds);
        List<Problem.FieldError> errors = catalogErrors(request, current);
        if (!errors.isEmpty()) {
            throw new ProblemException(Problem.validation(errors));
        }
        SortedMap<String, Integer> overCap = quantitiesOverCap(request, current);
        if (!overCap.isEmpty()) {
            throw new ProblemException(Problem.of(400, "QUANTITY_LIMIT_EXCEEDED", "Quantity limit exceeded",
                    overCap.entrySet().stream().map(product -> "One order may hold at most " + product.getValue()
                                    + " unit(s) of " + product.getKey() + ".")
                            .collect(Collectors.joining(" ")) + " Nothing was stored."));
        }
        return current;
    }

    /** The products of which the order asks more units (its lines together) than one order may hold, with their cap. */
    private SortedMap<String, Integer> quantitiesOverCap(CreateOrderRequest request, Map<String, CatalogPrice> catalog) {
        Map<String, Integer> wanted = new HashMap<>();
        request.items().forEach(item -> wanted.merge(item.productId(), item.quantity(), Integer::sum));
        SortedMap<String, Integer> overCap = new TreeMap<>();
        wanted.forEach((productId, quantity) -> {
            CatalogPrice product = catalog.get(productId);
            int cap = product.maxQuantityPerOrder() == null ? config.maxQuantityPerProduct()
                    : product.maxQuantityPerOrder();
            if (quantity > cap) {
                overCap.put(productId, cap);
            }
        });
        return overCap;
    }

    private static List<Problem.FieldError> catalogErrors(CreateOrderRequest request,
                                                         Map<String, CatalogPrice> catalog) {
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
        return errors.stream().distinct().toList();
    }

    /**
     * The order's writes, after taking its units of limited stock (the same product on two lines takes their sum). Not
     * enough of one product refuses the whole order, and nothing of it is kept.
     */
    private ClaimWrites withStockTaken(CreateOrderRequest request, Map<String, CatalogPrice> catalog,
                                       ClaimWrites orderWrites) {
        SortedMap<String, Integer> wanted = new TreeMap<>();
        request.items().stream().filter(item -> catalog.get(item.productId()).limited())
                .forEach(item -> wanted.merge(item.productId(), item.quantity(), Integer::sum));
        if (wanted.isEmpty()) {
            return orderWrites;
        }
        return catalogRows.reservation(wanted).and(orderWrites)
                .refusingOn(CatalogRows.STOCK_NEVER_NEGATIVE, () -> outOfStock(wanted));
    }

    /** The refusal of an order whose stock ran short, naming the products short of it now (all of them, if none is). */
    private BusinessRefusal outOfStock(SortedMap<String, Integer> wanted) {
        SortedMap<String, Integer> missing = catalogRows.shortOf(wanted);
        String detail = (missing.isEmpty() ? wanted : missing).entrySet().stream()
                .map(product -> "Not enough stock of " + product.getKey() + " for " + product.getValue() + " unit(s).")
                .collect(Collectors.joining(" "));
        return new BusinessRefusal(Problem.of(409, "OUT_OF_STOCK", "Out of stock", detail));
    }
}
