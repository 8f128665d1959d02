package dev.onceguard.checkout;

import dev.onceguard.idempotency.BusinessRefusal;
import dev.onceguard.idempotency.IdempotencyService;
import dev.onceguard.idempotency.StoredResponses;
import dev.onceguard.idempotency.IdempotentRequest;
import dev.onceguard.idempotency.IdempotentResponse;
import dev.onceguard.idempotency.PhaseResult;
import dev.onceguard.platform.Cause;
import dev.onceguard.platform.LogContext;
import dev.onceguard.platform.Problem;
import dev.onceguard.platform.ProblemException;
import dev.onceguard.platform.SqlRows;
import dev.onceguard.platform.Timestamps;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import org.jboss.logging.Logger;

import java.time.Instant;
import java.util.Map;

/**
 * Cancels an unpaid order for its owner, once per key, in the single transaction of its idempotency claim: the order
 * is locked (so no payment attempt of it can start or be inserted meanwhile: a payment locks the order too), checked,
 * moved to CANCELED by the state machine's conditional UPDATE, and its limited stock returned, all with the record's
 * final 200 or its stored refusal. The stock comes back once: only the move that happened returns it.
 *
 * <p>The claim and the whole operation commit together, so no record of this operation is ever left past its first
 * recovery point: a crash leaves none, or one the engine releases; so it registers no way to resume.
 */
@ApplicationScoped
public class OrderCancellation {

    /** The operation's name, as its records, metrics and settings carry it. */
    public static final String OPERATION = "cancel-order";
    private static final Logger LOG = Logger.getLogger(OrderCancellation.class);

    private final IdempotencyService idempotency;
    private final StoredResponses responses;
    private final OrderRows orders;
    private final SqlRows sql;

    public OrderCancellation(IdempotencyService idempotency, StoredResponses responses, OrderRows orders,
                             SqlRows sql) {
        this.idempotency = idempotency;
        this.responses = responses;
        this.orders = orders;
        this.sql = sql;
    }

    public Uni<IdempotentResponse> cancel(IdempotentRequest<CancelOrderRequest> request, String orderId) {
        Cause cause = Cause.request(request.requestId());
        return idempotency.execute(request, (body, recordId) -> cancelNow(request.userId(), orderId, cause), cause);
    }

    private PhaseResult cancelNow(String userId, String orderId, Cause cause) {
        LogContext.put(LogContext.ORDER_ID, orderId);
        OrderRows.Payable order = orders.lockForPayment(orderId, userId).orElseThrow(() -> new ProblemException(
                Problem.of(404, "ORDER_NOT_FOUND", "Order not found", "You have no order with this id.")));
        if (order.status() != Order.Status.AWAITING_PAYMENT) {
            throw new BusinessRefusal(Problem.of(409, "ORDER_NOT_CANCELABLE", "Order not cancelable",
                    "Order " + orderId + " is " + order.status() + "; only an order awaiting payment can be canceled."));
        }
        if (orders.hasAttemptInFlight(orderId)) {
            throw new BusinessRefusal(Problem.of(409, "PAYMENT_ATTEMPT_UNRESOLVED", "Payment attempt unresolved",
                    "A payment attempt of order " + orderId + " is still in flight; the order can be canceled once "
                            + "it has failed or been canceled."));
        }
        Instant now = Timestamps.now();
        if (OrderStates.MACHINE.move(sql, orderId, Order.Status.CANCELED, cause, now).isPresent()) {
            orders.returnStock(orderId);
            LOG.infof("order %s -> CANCELED by its owner (%s)", orderId, cause);
        }
        Order canceled = orders.findOwned(orderId, userId).orElseThrow();
        return PhaseResult.completed(responses.json(200, OrderView.of(canceled),
                Map.of("Content-Location", "/api/orders/" + orderId), OrderService.RESOURCE_TYPE, orderId));
    }
}
