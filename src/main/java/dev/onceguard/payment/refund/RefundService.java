package dev.onceguard.payment.refund;

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
import dev.onceguard.payment.Payment;
import dev.onceguard.payment.PaymentProviders;
import dev.onceguard.payment.PaymentRows;
import dev.onceguard.payment.PaymentsConfig;
import dev.onceguard.payment.provider.CreateRefund;
import dev.onceguard.payment.provider.PaymentProvider;
import dev.onceguard.payment.provider.ProviderOutcomeUnknown;
import dev.onceguard.payment.provider.ProviderRefund;
import dev.onceguard.platform.Cause;
import dev.onceguard.platform.Ids;
import dev.onceguard.platform.LogContext;
import dev.onceguard.platform.Problem;
import dev.onceguard.platform.ProblemException;
import dev.onceguard.platform.Timestamps;
import io.quarkus.narayana.jta.QuarkusTransaction;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.transaction.Transactional;
import org.jboss.logging.Logger;

import java.math.BigDecimal;
import java.util.Map;
import java.util.Optional;

/**
 * Refunds a payment in atomic phases, the engine's second operation that calls out (after {@code create-payment}):
 * <ol>
 *   <li>(a) with the idempotency claim: the payment must be SUCCEEDED; one conditional UPDATE reserves the amount
 *       against what remains of it ({@link RefundRows#reserve}), so racing refunds never add up to more than the
 *       payment; the refund is inserted as PENDING with a provider key derived from its id; recovery point
 *       {@code refund_reserved}, lease kept;</li>
 *   <li>(b) outside any transaction: the refund at the provider with that key ({@code refund_reserved}); or, from
 *       {@code outcome_unknown}, first a look-up of the refund at the provider by its id, and the call with the same
 *       key only when the provider has no such refund (the first call never reached it);</li>
 *   <li>(c) one atomic phase applies the answer ({@link RefundOutcomes}) and comes to the final 201; or, when the
 *       answer is unknown, marks the refund UNKNOWN and pauses at {@code outcome_unknown} with a 202 that is never
 *       stored, for a retry with the same key, the provider's refund webhook, lease recovery or reconciliation to
 *       settle.</li>
 * </ol>
 */
@ApplicationScoped
public class RefundService implements ResumableOperation {

    /** The operation's name, as its records, metrics and settings carry it. */
    public static final String OPERATION = "create-refund";
    public static final String RESOURCE_TYPE = "refund";
    static final String REFUND_RESERVED = "refund_reserved";
    static final String OUTCOME_UNKNOWN = "outcome_unknown";
    static final int RETRY_UNKNOWN_AFTER_SECONDS = 5;
    private static final Logger LOG = Logger.getLogger(RefundService.class);

    private final IdempotencyService idempotency;
    private final StoredResponses responses;
    private final PaymentProviders providers;
    private final PaymentRows payments;
    private final RefundRows rows;
    private final RefundOutcomes outcomes;
    private final Ids ids;
    private final PaymentsConfig config;

    public RefundService(IdempotencyService idempotency, StoredResponses responses, PaymentProviders providers,
                         PaymentRows payments, RefundRows rows, RefundOutcomes outcomes, Ids ids,
                         PaymentsConfig config) {
        this.idempotency = idempotency;
        this.responses = responses;
        this.providers = providers;
        this.payments = payments;
        this.rows = rows;
        this.outcomes = outcomes;
        this.ids = ids;
        this.config = config;
    }

    @Override
    public String name() {
        return OPERATION;
    }

    /**
     * Refunds (part of) payment {@code paymentId} once per key of the request's scope.
     *
     * @param requestedBy who asks, as the refund keeps it (a token's {@code sub}, {@code console:<login>})
     */
    public Uni<IdempotentResponse> refund(IdempotentRequest<CreateRefundRequest> request, String paymentId,
                                          String requestedBy) {
        return idempotency.execute(request, (body, recordId) -> reserve(paymentId, requestedBy, body, recordId),
                Cause.providerAnswer(request.requestId()));
    }

    /** Phase (a), inside the claim's transaction. */
    private PhaseResult reserve(String paymentId, String requestedBy, CreateRefundRequest body, long recordId) {
        Payment payment = payments.find(paymentId).orElseThrow(() -> new ProblemException(Problem.of(404,
                "PAYMENT_NOT_FOUND", "Payment not found", "There is no payment with this id.")));
        if (payment.status() != Payment.Status.SUCCEEDED) {
            throw new BusinessRefusal(Problem.of(409, "PAYMENT_NOT_REFUNDABLE", "Payment not refundable",
                    "Payment " + paymentId + " is " + payment.status() + "; only a SUCCEEDED payment can be refunded."));
        }
        BigDecimal amount = rows.reserve(paymentId, body.amountOrRemainder()).orElseThrow(() -> new BusinessRefusal(
                Problem.of(409, "REFUND_EXCEEDS_PAYMENT", "Refund exceeds payment", "The amount is more than what "
                        + "remains of payment " + paymentId + " (its amount minus its refunds that succeeded or are "
                        + "not final yet).")));
        String refundId = ids.next("ref");
        LogContext.put(LogContext.PAYMENT_ID, paymentId);
        rows.insert(new Refund(refundId, paymentId, payment.orderId(), requestedBy, Refund.Status.PENDING, amount,
                payment.currency(), body.reason(), body.note(), payment.provider(), "onceguard-" + refundId, null,
                recordId, Timestamps.now()));
        return PhaseResult.continueAt(new Checkpoint(REFUND_RESERVED, RESOURCE_TYPE, refundId));
    }

    /**
     * Phase (b) from the recovery point, for a record the caller holds under a lease, and the phase (c) that applies
     * its answer. A refund the provider's webhook has meanwhile settled needs no call.
     */
    @Override
    public AtomicPhase resume(long recordId, Checkpoint checkpoint, Cause cause) {
        Refund refund = QuarkusTransaction.requiringNew().call(() -> rows.get(checkpoint.resourceId()));
        if (!waitsForProvider(refund)) {
            return () -> settle(refund.refundId());
        }
        Optional<PaymentProvider> provider = providers.named(refund.provider());
        Payment payment = QuarkusTransaction.requiringNew().call(() -> payments.get(refund.paymentId()));
        if (provider.isEmpty()) {
            return unknown(refund, cause);
        }
        return switch (checkpoint.recoveryPoint()) {
            case REFUND_RESERVED -> call(provider.get(), payment, refund, cause);
            case OUTCOME_UNKNOWN -> lookUpThenCall(provider.get(), payment, refund, cause);
            default -> throw new IllegalStateException("refund " + refund.refundId() + " has no phase after "
                    + "recovery point " + checkpoint.recoveryPoint());
        };
    }

    /** Whether the provider's word on the refund is still awaited: never answered, or answered unknown. */
    static boolean waitsForProvider(Refund refund) {
        return refund.status() == Refund.Status.UNKNOWN
                || (refund.status() == Refund.Status.PENDING && refund.providerRefundId() == null);
    }

    /** (b) at the provider with the refund's own key, which returns the first refund again, never a second one. */
    private AtomicPhase call(PaymentProvider provider, Payment payment, Refund refund, Cause cause) {
        ProviderRefund answer;
        try {
            answer = provider.refund(new CreateRefund(refund.providerIdempotencyKey(), payment.providerPaymentId(),
                    refund.amount(), refund.currency(), refund.refundId(), refund.paymentId()));
        } catch (ProviderOutcomeUnknown e) {
            LOG.warnf("refund %s: provider outcome unknown (%s)", refund.refundId(), e.getMessage());
            return unknown(refund, cause);
        }
        return applying(refund, answer, cause);
    }

    /** (b) after an unknown outcome: what the provider knows of the refund; only if nothing, the call again. */
    private AtomicPhase lookUpThenCall(PaymentProvider provider, Payment payment, Refund refund, Cause cause) {
        Optional<ProviderRefund> found;
        try {
            found = provider.findRefund(payment.providerPaymentId(), refund.refundId());
        } catch (ProviderOutcomeUnknown e) {
            LOG.warnf("refund %s: provider still unreachable (%s)", refund.refundId(), e.getMessage());
            return unknown(refund, cause);
        }
        return found.map(answer -> applying(refund, answer, cause))
                .orElseGet(() -> call(provider, payment, refund, cause));
    }

    private AtomicPhase unknown(Refund refund, Cause cause) {
        return () -> {
            outcomes.markUnknown(refund, cause);
            return settle(refund.refundId());
        };
    }

    private AtomicPhase applying(Refund refund, ProviderRefund answer, Cause cause) {
        return () -> {
            outcomes.apply(refund, answer.providerRefundId(), answer.status(), cause);
            return settle(refund.refundId());
        };
    }

    /**
     * Phase (c)'s result from the refund as the database has it once the answer is applied: while it is UNKNOWN, a
     * recovery point that gives the lease up and answers 202; else the final 201.
     */
    private PhaseResult settle(String refundId) {
        Refund current = rows.get(refundId);
        if (current.status() == Refund.Status.UNKNOWN) {
            return PhaseResult.pause(new Checkpoint(OUTCOME_UNKNOWN, RESOURCE_TYPE, refundId),
                    responses.json(202, RefundView.of(current), Map.of("Location", location(current),
                            "Retry-After", String.valueOf(RETRY_UNKNOWN_AFTER_SECONDS)), RESOURCE_TYPE, refundId),
                    config.unknownRecheckWait(current.createdAt(), Timestamps.now()));
        }
        return PhaseResult.completed(finalResponse(current));
    }

    /**
     * Settles the operation of a refund that a webhook has just moved, in the webhook's transaction, as
     * {@code create-payment} does: a record left UNKNOWN stores the final 201, so the client's retry replays it.
     */
    @Transactional(Transactional.TxType.MANDATORY)
    public void finishSettled(String refundId, Cause cause) {
        Refund current = rows.get(refundId);
        if (current.idempotencyRecordId() != null) {
            idempotency.applyUnheld(current.idempotencyRecordId(), OPERATION,
                    waitsForProvider(current) ? PhaseResult.noOp() : PhaseResult.completed(finalResponse(current)), cause);
        }
    }

    private StoredResponse finalResponse(Refund current) {
        return responses.json(201, RefundView.of(current), Map.of("Location", location(current)),
                RESOURCE_TYPE, current.refundId());
    }

    /** The payment, whose representation lists its refunds. */
    private static String location(Refund refund) {
        return "/api/payments/" + refund.paymentId();
    }
}
