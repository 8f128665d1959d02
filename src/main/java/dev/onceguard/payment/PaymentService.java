package dev.onceguard.payment;

import dev.onceguard.platform.LogContext;
import dev.onceguard.checkout.OrderRows;
import dev.onceguard.idempotency.BusinessRefusal;
import dev.onceguard.idempotency.Checkpoint;
import dev.onceguard.idempotency.IdempotencyRecord;
import dev.onceguard.idempotency.IdempotencyService;
import dev.onceguard.idempotency.IdempotentRequest;
import dev.onceguard.idempotency.IdempotentResponse;
import dev.onceguard.idempotency.Operation;
import dev.onceguard.idempotency.PhasedOperation;
import dev.onceguard.idempotency.ResumableOperation;
import dev.onceguard.idempotency.StoredResponse;
import dev.onceguard.payment.provider.CreatePayment;
import dev.onceguard.payment.provider.CustomerAction;
import dev.onceguard.payment.provider.PaymentProvider;
import dev.onceguard.payment.provider.ProviderOutcomeUnknown;
import dev.onceguard.payment.provider.ProviderPayment;
import dev.onceguard.platform.Cause;
import dev.onceguard.platform.Ids;
import dev.onceguard.platform.Problem;
import dev.onceguard.platform.ProblemException;
import dev.onceguard.platform.Timestamps;
import io.quarkus.narayana.jta.QuarkusTransaction;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.persistence.EntityManager;
import jakarta.transaction.Transactional;
import org.jboss.logging.Logger;

import java.time.Instant;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Pays for an order in three phases, because a call to the provider cannot sit inside a database transaction
 * (holding locks and a connection for as long as the provider takes) and cannot be rolled back either:
 * <ol>
 *   <li>(a) with the idempotency claim: lock the order, check it may be paid, insert the attempt as CREATED with
 *       its provider key (the partial UNIQUE index allows one unresolved attempt per order); checkpoint
 *       {@code payment_created};</li>
 *   <li>(b) outside any transaction: create the payment at the provider with that same key;</li>
 *   <li>(c) one transaction: apply the provider's answer and complete the record with the final response; or, when
 *       the answer is unknown, mark the attempt UNKNOWN, leave the record unfinished at {@code outcome_unknown} and
 *       answer 202, for a retry with the same key or reconciliation to finish; when the customer has to pass a
 *       3-D Secure challenge, leave it unfinished at {@code requires_action} and answer 202 with what the client
 *       needs, for the webhook to settle.</li>
 * </ol>
 * A retry or reconciliation resumes from the checkpoint with {@link #resume}: never a fresh provider key.
 */
@ApplicationScoped
public class PaymentService implements ResumableOperation {

    public static final String RESOURCE_TYPE = "payment";
    static final String PAYMENT_CREATED = "payment_created";
    static final String OUTCOME_UNKNOWN = "outcome_unknown";
    static final String REQUIRES_ACTION = "requires_action";
    static final int RETRY_UNKNOWN_AFTER_SECONDS = 5;
    private static final Logger LOG = Logger.getLogger(PaymentService.class);

    private final IdempotencyService idempotency;
    private final PaymentProviders providers;
    private final PaymentOutcomes outcomes;
    private final EntityManager em;
    private final Ids ids;
    private final OrderRows orders;

    public PaymentService(IdempotencyService idempotency, PaymentProviders providers, PaymentOutcomes outcomes,
                          EntityManager em, Ids ids, OrderRows orders) {
        this.orders = orders;
        this.idempotency = idempotency;
        this.providers = providers;
        this.outcomes = outcomes;
        this.em = em;
        this.ids = ids;
    }

    @Override
    public String operation() {
        return Operation.CREATE_PAYMENT.wireName();
    }

    public IdempotentResponse pay(IdempotentRequest<CreatePaymentRequest> request, String orderId) {
        return idempotency.execute(request, new PhasedOperation<>() {
            @Override
            public Checkpoint start(CreatePaymentRequest body, long recordId) {
                return createAttempt(request.userId(), orderId, body, recordId);
            }

            @Override
            public IdempotentResponse resume(long recordId, Checkpoint checkpoint) {
                return PaymentService.this.resume(recordId, checkpoint, Cause.providerAnswer(request.requestId()));
            }
        });
    }

    /** Phase (a), inside the claim's transaction. */
    private Checkpoint createAttempt(String userId, String orderId, CreatePaymentRequest body, long recordId) {
        OrderRows.Payable order = orders.lockForPayment(orderId, userId).orElseThrow(() -> new ProblemException(Problem.of(404, "ORDER_NOT_FOUND", "Order not found",
                        "You have no order with this id.")));
        switch (order.status()) {
            case PAID, FULFILLED -> throw new BusinessRefusal(Problem.of(409, "ORDER_ALREADY_PAID",
                    "Order already paid", "Order " + orderId + " is already paid."));
            case CANCELED -> throw new BusinessRefusal(Problem.of(409, "ORDER_NOT_PAYABLE", "Order not payable",
                    "Order " + orderId + " is canceled."));
            case AWAITING_PAYMENT -> {
            }
        }
        PaymentProvider provider = providers.forNewPayments().orElseThrow(() -> new ProblemException(Problem.of(503,
                "PROVIDER_UNAVAILABLE", "Payment provider unavailable",
                "No payment provider is enabled; nothing was stored. Retry later with the same Idempotency-Key.")));

        String paymentId = ids.next("pay");
        LogContext.put(LogContext.PAYMENT_ID, paymentId);
        Instant now = Timestamps.now();
        int inserted = em.createNativeQuery("""
                        INSERT INTO payments (payment_id, order_id, user_id, status, amount, currency, provider,
                            provider_idempotency_key, payment_method_token, idempotency_record_id, created_at, updated_at)
                        VALUES (:paymentId, :orderId, :userId, 'CREATED', :amount, :currency, :provider,
                            :providerKey, :token, :recordId, :now, :now)
                        ON CONFLICT (order_id) WHERE status IN ('CREATED', 'PENDING', 'UNKNOWN') DO NOTHING""")
                .setParameter("paymentId", paymentId)
                .setParameter("orderId", orderId)
                .setParameter("userId", userId)
                .setParameter("amount", order.total())
                .setParameter("currency", order.currency())
                .setParameter("provider", provider.name())
                .setParameter("providerKey", "onceguard-" + paymentId)
                .setParameter("token", body.paymentMethodToken())
                .setParameter("recordId", recordId)
                .setParameter("now", now)
                .executeUpdate();
        if (inserted == 0) {
            throw new BusinessRefusal(Problem.of(409, "PAYMENT_ATTEMPT_UNRESOLVED", "Payment attempt unresolved",
                    "Another payment attempt of order " + orderId + " is still pending or unknown; "
                            + "a new attempt is possible only after it failed or was canceled."));
        }
        return new Checkpoint(PAYMENT_CREATED, RESOURCE_TYPE, paymentId);
    }

    /**
     * Phases (b) and (c) for a record at {@code payment_created}, {@code outcome_unknown} or {@code requires_action},
     * held under a lease by the caller (the first request, a retry that took it over, lease recovery, reconciliation
     * or an admin).
     *
     * @param cause who resumes it, recorded with every state change the provider's answer makes
     */
    @Override
    public IdempotentResponse resume(long recordId, Checkpoint checkpoint, Cause cause) {
        Payment payment = QuarkusTransaction.requiringNew().call(() -> Payment.<Payment>findById(checkpoint.resourceId()));
        boolean waitsForCustomer = payment.status == Payment.Status.REQUIRES_ACTION;
        if (payment.status != Payment.Status.CREATED && payment.status != Payment.Status.UNKNOWN && !waitsForCustomer) {
            return settle(recordId, payment, p -> { }, null);
        }
        PaymentProvider provider = providers.named(payment.provider).orElse(null);
        if (provider == null) {
            return settle(recordId, payment, p -> outcomes.markUnknown(p, cause), null);
        }
        try {
            ProviderPayment answer = waitsForCustomer ? provider.retrieve(payment.providerPaymentId)
                    : provider.create(new CreatePayment(payment.providerIdempotencyKey, payment.amount, payment.currency,
                    payment.paymentMethodToken, payment.orderId, payment.paymentId));
            return settle(recordId, payment, p -> outcomes.apply(p, answer.providerPaymentId(), answer.status(), cause),
                    answer.customerAction());
        } catch (ProviderOutcomeUnknown e) {
            LOG.warnf("payment %s: provider outcome unknown (%s)", payment.paymentId, e.getMessage());
            return settle(recordId, payment, p -> {
                if (!waitsForCustomer) {
                    outcomes.markUnknown(p, cause);
                }
            }, null);
        }
    }

    /**
     * Finishes the operation of a payment that a webhook has just settled, in the webhook's transaction, when that
     * operation was left unfinished (UNKNOWN, or waiting for the customer): the client's next retry replays the
     * final 201 instead of asking the provider again. Nothing happens when a request holds the record or it is
     * already finished.
     */
    @Transactional(Transactional.TxType.MANDATORY)
    public void finishSettled(String paymentId) {
        Payment current = freshPayment(paymentId);
        if (current.idempotencyRecordId == null || !PaymentStates.MACHINE.isFinal(current.status)) {
            return;
        }
        idempotency.complete(current.idempotencyRecordId, IdempotencyRecord.Status.COMPLETED, finalResponse(current),
                Operation.CREATE_PAYMENT, Timestamps.now());
    }

    /**
     * Phase (c): one transaction applies what is known, then either completes the record with the final 201 or,
     * while the attempt is UNKNOWN or waits for the customer, leaves it unfinished and answers 202 without storing
     * that answer (which, for a customer action, carries the client secret).
     */
    private IdempotentResponse settle(long recordId, Payment payment, Consumer<Payment> applyWhatIsKnown,
                                      CustomerAction customerAction) {
        return QuarkusTransaction.requiringNew().call(() -> {
            applyWhatIsKnown.accept(payment);
            Payment current = freshPayment(payment.paymentId);
            if (current.status == Payment.Status.UNKNOWN || current.status == Payment.Status.REQUIRES_ACTION) {
                boolean unknown = current.status == Payment.Status.UNKNOWN;
                idempotency.leaveUnfinished(recordId, new Checkpoint(unknown ? OUTCOME_UNKNOWN : REQUIRES_ACTION,
                        RESOURCE_TYPE, current.paymentId));
                Map<String, String> headers = unknown
                        ? Map.of("Location", "/api/payments/" + current.paymentId,
                        "Retry-After", String.valueOf(RETRY_UNKNOWN_AFTER_SECONDS))
                        : Map.of("Location", "/api/payments/" + current.paymentId);
                PaymentView view = unknown || customerAction == null ? PaymentView.of(current)
                        : PaymentView.waitingForCustomer(current, customerAction);
                return new IdempotentResponse(IdempotentResponse.Outcome.EXECUTED, idempotency.jsonResponse(202,
                        view, headers, RESOURCE_TYPE, current.paymentId));
            }
            StoredResponse response = finalResponse(current);
            if (idempotency.complete(recordId, IdempotencyRecord.Status.COMPLETED, response, Operation.CREATE_PAYMENT,
                    Timestamps.now())) {
                return new IdempotentResponse(IdempotentResponse.Outcome.EXECUTED, response);
            }
            return idempotency.replayOf(recordId).orElseThrow(() -> new IllegalStateException(
                    "record " + recordId + " was neither completable nor finished"));
        });
    }

    /** The payment as the database has it now: the state machine moves it with SQL, past any entity already loaded. */
    private Payment freshPayment(String paymentId) {
        Payment payment = Payment.findById(paymentId);
        em.refresh(payment);
        return payment;
    }

    private StoredResponse finalResponse(Payment current) {
        return idempotency.jsonResponse(201, PaymentView.of(current),
                Map.of("Location", "/api/payments/" + current.paymentId), RESOURCE_TYPE, current.paymentId);
    }
}
