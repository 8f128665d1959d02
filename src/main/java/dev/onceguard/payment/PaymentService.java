package dev.onceguard.payment;

import dev.onceguard.platform.LogContext;
import dev.onceguard.checkout.OrderRows;
import dev.onceguard.idempotency.AtomicPhase;
import dev.onceguard.idempotency.BusinessRefusal;
import dev.onceguard.idempotency.Checkpoint;
import dev.onceguard.idempotency.IdempotencyService;
import dev.onceguard.idempotency.StoredResponses;
import dev.onceguard.idempotency.IdempotentRequest;
import dev.onceguard.idempotency.IdempotentResponse;
import dev.onceguard.idempotency.PhaseResult;
import dev.onceguard.idempotency.ResumableOperation;
import dev.onceguard.idempotency.StoredResponse;
import dev.onceguard.payment.provider.CreatePayment;
import dev.onceguard.payment.provider.CustomerAction;
import dev.onceguard.payment.provider.PaymentProvider;
import dev.onceguard.payment.provider.ProviderOutcomeUnknown;
import dev.onceguard.payment.provider.ProviderPayment;
import dev.onceguard.payment.provider.ProviderStatus;
import dev.onceguard.platform.Cause;
import dev.onceguard.platform.EarlierCommitLost;
import dev.onceguard.platform.Ids;
import dev.onceguard.platform.Problem;
import dev.onceguard.platform.ProblemException;
import dev.onceguard.platform.Timestamps;
import io.quarkus.narayana.jta.QuarkusTransaction;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.transaction.Transactional;
import org.jboss.logging.Logger;

import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Pays for an order in atomic phases, because a call to the provider cannot sit inside a database transaction
 * (holding locks and a connection for as long as the provider takes) and cannot be rolled back either. The engine
 * runs each phase in a transaction of its own and applies its result to the idempotency record there:
 * <ol>
 *   <li>(a) with the idempotency claim: lock the order, check it may be paid, insert the attempt as CREATED with
 *       its provider key (the partial UNIQUE index allows one unresolved attempt per order); recovery point
 *       {@code payment_created}, lease kept;</li>
 *   <li>(b) outside any transaction, decided by the recovery point: create the payment at the provider with that
 *       same key ({@code payment_created}, {@code outcome_unknown}), or ask where the customer's challenge stands
 *       ({@code requires_action});</li>
 *   <li>(c) one atomic phase applies the provider's answer to the payment and comes to the final response (201);
 *       or, when the answer is unknown, marks the attempt UNKNOWN and comes to recovery point {@code outcome_unknown},
 *       for a retry with the same key or reconciliation to go on from; or, when the customer has to pass a 3-D
 *       Secure challenge, to {@code requires_action}, for the webhook to settle (lease recovery leaves it alone for
 *       {@code onceguard.payments.customer-action-wait} first). Both give the lease up and answer 202, which is never
 *       stored.</li>
 * </ol>
 * Every take-over goes on from the recovery point with {@link #resume}: never a fresh provider key.
 */
@ApplicationScoped
public class PaymentService implements ResumableOperation {

    /** The operation's name, as its records, metrics and settings carry it. */
    public static final String OPERATION = "create-payment";
    public static final String RESOURCE_TYPE = "payment";
    static final String PAYMENT_CREATED = "payment_created";
    static final String OUTCOME_UNKNOWN = "outcome_unknown";
    static final String REQUIRES_ACTION = "requires_action";
    static final int RETRY_UNKNOWN_AFTER_SECONDS = 5;
    /** The provider's payments an attempt takes over rather than charge again: money taken or on its way. */
    private static final Set<ProviderStatus> ADOPTABLE = EnumSet.of(ProviderStatus.SUCCEEDED, ProviderStatus.PENDING,
            ProviderStatus.REQUIRES_ACTION);
    private static final Logger LOG = Logger.getLogger(PaymentService.class);

    private final IdempotencyService idempotency;
    private final StoredResponses responses;
    private final PaymentProviders providers;
    private final PaymentOutcomes outcomes;
    private final PaymentRows rows;
    private final Ids ids;
    private final OrderRows orders;
    private final PaymentsConfig config;

    public PaymentService(IdempotencyService idempotency, StoredResponses responses, PaymentProviders providers,
                          PaymentOutcomes outcomes, PaymentRows rows, Ids ids, OrderRows orders,
                          PaymentsConfig config) {
        this.orders = orders;
        this.config = config;
        this.idempotency = idempotency;
        this.responses = responses;
        this.providers = providers;
        this.outcomes = outcomes;
        this.rows = rows;
        this.ids = ids;
    }

    @Override
    public String name() {
        return OPERATION;
    }

    public Uni<IdempotentResponse> pay(IdempotentRequest<CreatePaymentRequest> request, String orderId) {
        return idempotency.execute(request, (body, recordId) -> createAttempt(request.userId(), orderId, body, recordId),
                Cause.providerAnswer(request.requestId()));
    }

    /** Phase (a), inside the claim's transaction. */
    private PhaseResult createAttempt(String userId, String orderId, CreatePaymentRequest body, long recordId) {
        OrderRows.Payable order = orders.lockForPayment(orderId, userId).orElseThrow(() -> new ProblemException(
                Problem.of(404, "ORDER_NOT_FOUND", "Order not found",
                        "You have no order with this id.")));
        switch (order.status()) {
            case PAID, FULFILLED, REFUNDED -> throw new BusinessRefusal(Problem.of(409, "ORDER_ALREADY_PAID",
                    "Order already paid", "Order " + orderId + " is already paid."));
            case CANCELED -> throw new BusinessRefusal(Problem.of(409, "ORDER_NOT_PAYABLE", "Order not payable",
                    "Order " + orderId + " is canceled."));
            case EXPIRED -> throw new BusinessRefusal(Problem.of(409, "ORDER_NOT_PAYABLE", "Order not payable",
                    "Order " + orderId + " expired unpaid and its stock was released; place a new order."));
            case AWAITING_PAYMENT -> {
            }
        }
        PaymentProvider provider = providers.forNewPayments().orElseThrow(() -> new ProblemException(Problem.of(503,
                "PROVIDER_UNAVAILABLE", "Payment provider unavailable",
                "No payment provider is enabled; nothing was stored. Retry later with the same Idempotency-Key.")));

        String paymentId = ids.next("pay");
        LogContext.put(LogContext.PAYMENT_ID, paymentId);
        if (!rows.insert(new Payment(paymentId, orderId, userId, Payment.Status.CREATED, order.total(),
                order.currency(), provider.name(), "onceguard-" + paymentId, null, body.paymentMethodToken(), recordId,
                Timestamps.now()))) {
            throw new BusinessRefusal(Problem.of(409, "PAYMENT_ATTEMPT_UNRESOLVED", "Payment attempt unresolved",
                    "Another payment attempt of order " + orderId + " is still pending or unknown; "
                            + "a new attempt is possible only after it failed or was canceled."));
        }
        return PhaseResult.continueAt(new Checkpoint(PAYMENT_CREATED, RESOURCE_TYPE, paymentId));
    }

    /**
     * Phase (b) from the recovery point the payment wrote, for a record the caller holds under a lease (the first
     * request, a retry that took it over, lease recovery, reconciliation or an admin), and the phase (c) that applies
     * its answer. A payment the provider has meanwhile settled through a webhook needs no call.
     *
     * @param cause who resumes it, recorded with every state change the provider's answer makes
     */
    @Override
    public AtomicPhase resume(long recordId, Checkpoint checkpoint, Cause cause) {
        Payment payment = QuarkusTransaction.requiringNew().call(() -> attempt(checkpoint.resourceId()));
        if (!PaymentStates.waitsForProvider(payment.status())) {
            return () -> settle(payment.paymentId(), null);
        }
        Optional<PaymentProvider> provider = providers.named(payment.provider());
        if (provider.isEmpty()) {
            return unknown(payment, cause);
        }
        return switch (checkpoint.recoveryPoint()) {
            case PAYMENT_CREATED, OUTCOME_UNKNOWN -> create(provider.get(), payment, cause);
            case REQUIRES_ACTION -> askAboutChallenge(provider.get(), payment, cause);
            default -> throw new IllegalStateException("payment " + payment.paymentId() + " has no phase after "
                    + "recovery point " + checkpoint.recoveryPoint());
        };
    }

    /**
     * (b) at the provider with the attempt's own key, which returns the first payment again, never a second one; unless
     * the provider already holds a payment of the order that the database does not know, which is adopted instead.
     */
    private AtomicPhase create(PaymentProvider provider, Payment payment, Cause cause) {
        if (config.adoptLostCharges() && payment.providerPaymentId() == null) {
            Optional<ProviderPayment> lost = paymentOfALostAttempt(provider, payment);
            if (lost.isPresent()) {
                LOG.warnf("payment %s adopts %s payment %s of order %s, which no attempt in the database knows "
                                + "(this attempt's own earlier call whose answer was lost, or an attempt whose commit "
                                + "was lost); no new charge", payment.paymentId(), payment.provider(),
                        lost.get().providerPaymentId(), payment.orderId());
                return applying(payment, lost.get(), cause);
            }
        }
        ProviderPayment answer;
        try {
            answer = provider.create(new CreatePayment(payment.providerIdempotencyKey(), payment.amount(),
                    payment.currency(), payment.paymentMethodToken(), payment.orderId(), payment.paymentId()));
        } catch (ProviderOutcomeUnknown e) {
            LOG.warnf("payment %s: provider outcome unknown (%s)", payment.paymentId(), e.getMessage());
            return unknown(payment, cause);
        }
        return applying(payment, answer, cause);
    }

    /**
     * A payment of this attempt's order that the provider holds and no attempt in the database knows, succeeded or
     * still in progress (a succeeded one first): the charge of an attempt whose rows a failover lost after the provider
     * made it (decision 0045), or this attempt's own, made by an earlier call whose answer never arrived (which the
     * create with the same key would return anyway). The provider is asked while the attempt has no provider payment
     * yet, a round trip the order itself never pays; when the provider cannot be asked, the create goes on and its own
     * answer decides.
     */
    private Optional<ProviderPayment> paymentOfALostAttempt(PaymentProvider provider, Payment payment) {
        List<ProviderPayment> held;
        try {
            held = provider.paymentsOfOrder(payment.orderId());
        } catch (ProviderOutcomeUnknown e) {
            LOG.warnf("payment %s: could not list the provider's payments of order %s (%s)", payment.paymentId(),
                    payment.orderId(), e.getMessage());
            return Optional.empty();
        }
        List<ProviderPayment> unknownToUs = held.stream()
                .filter(candidate -> candidate.providerPaymentId() != null && ADOPTABLE.contains(candidate.status()))
                .filter(candidate -> QuarkusTransaction.requiringNew().call(() ->
                        rows.findByProviderPayment(payment.provider(), candidate.providerPaymentId()).isEmpty()))
                .toList();
        return unknownToUs.stream().filter(candidate -> candidate.status() == ProviderStatus.SUCCEEDED).findFirst()
                .or(() -> unknownToUs.stream().findFirst());
    }

    /** (b) for an attempt that waits for the customer: where the challenge stands; unanswered, it still waits. */
    private AtomicPhase askAboutChallenge(PaymentProvider provider, Payment payment, Cause cause) {
        ProviderPayment answer;
        try {
            answer = provider.retrieve(payment.providerPaymentId());
        } catch (ProviderOutcomeUnknown e) {
            LOG.warnf("payment %s: provider outcome unknown (%s)", payment.paymentId(), e.getMessage());
            return () -> settle(payment.paymentId(), null);
        }
        return applying(payment, answer, cause);
    }

    private AtomicPhase unknown(Payment payment, Cause cause) {
        return () -> {
            outcomes.markUnknown(payment, cause);
            return settle(payment.paymentId(), null);
        };
    }

    private AtomicPhase applying(Payment payment, ProviderPayment answer, Cause cause) {
        return () -> {
            outcomes.apply(payment, answer.providerPaymentId(), answer.status(), answer.failureReason(), cause);
            return settle(payment.paymentId(), answer.customerAction());
        };
    }

    /**
     * Phase (c)'s result, from the payment as the database has it once the answer is applied: while the attempt is
     * UNKNOWN or waits for the customer, a recovery point that gives the lease up and answers 202 (with, for a
     * customer action, the client secret, which is why it is never stored); else the final 201.
     */
    private PhaseResult settle(String paymentId, CustomerAction customerAction) {
        Payment current = attempt(paymentId);
        String location = "/api/payments/" + paymentId;
        return switch (current.status()) {
            case UNKNOWN -> PhaseResult.pause(new Checkpoint(OUTCOME_UNKNOWN, RESOURCE_TYPE, paymentId),
                    responses.json(202, PaymentView.of(current), Map.of("Location", location,
                            "Retry-After", String.valueOf(RETRY_UNKNOWN_AFTER_SECONDS)), RESOURCE_TYPE, paymentId),
                    config.unknownRecheckWait(current.createdAt(), Timestamps.now()));
            case REQUIRES_ACTION -> PhaseResult.pause(new Checkpoint(REQUIRES_ACTION, RESOURCE_TYPE, paymentId),
                    responses.json(202, customerAction == null ? PaymentView.of(current)
                                    : PaymentView.waitingForCustomer(current, customerAction),
                            Map.of("Location", location), RESOURCE_TYPE, paymentId),
                    config.customerActionWait());
            default -> PhaseResult.completed(finalResponse(current));
        };
    }

    /** The attempt this operation inserted in its phase (a); gone only when a failover lost that commit. */
    private Payment attempt(String paymentId) {
        return rows.find(paymentId).orElseThrow(() -> new EarlierCommitLost("payment " + paymentId
                + " vanished while its operation ran"));
    }

    /**
     * Settles the operation of a payment that a webhook has just moved, in the webhook's transaction: a final payment
     * is the operation's final response, which the engine stores on a record left unfinished (UNKNOWN, or waiting for
     * the customer) so the client's next retry replays the final 201 instead of asking the provider again. A record
     * that a request holds under a live lease is left to that request, which reads the same payment and finishes it
     * with the same 201; a finished one stays as it is.
     */
    @Transactional(Transactional.TxType.MANDATORY)
    public void finishSettled(String paymentId, Cause cause) {
        Payment current = rows.get(paymentId);
        if (current.idempotencyRecordId() != null) {
            idempotency.applyUnheld(current.idempotencyRecordId(), OPERATION,
                    PaymentStates.MACHINE.isFinal(current.status()) ? PhaseResult.completed(finalResponse(current))
                            : PhaseResult.noOp(), cause);
        }
    }

    private StoredResponse finalResponse(Payment current) {
        return responses.json(201, PaymentView.of(current),
                Map.of("Location", "/api/payments/" + current.paymentId()), RESOURCE_TYPE, current.paymentId());
    }
}
