package dev.onceguard.console;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.onceguard.idempotency.IdempotencyService;
import dev.onceguard.idempotency.IdempotentRequest;
import dev.onceguard.idempotency.IdempotentResponse;
import dev.onceguard.payment.Payment;
import dev.onceguard.payment.PaymentRows;
import dev.onceguard.payment.refund.CreateRefundRequest;
import dev.onceguard.payment.refund.Refund;
import dev.onceguard.payment.refund.RefundRows;
import dev.onceguard.payment.refund.RefundService;
import dev.onceguard.platform.ProblemException;
import dev.onceguard.platform.RequestIds;
import io.quarkus.qute.CheckedTemplate;
import io.quarkus.qute.TemplateInstance;
import io.quarkus.runtime.annotations.RegisterForReflection;
import io.quarkus.security.identity.SecurityIdentity;
import io.smallrye.mutiny.Uni;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServerRequest;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.FormParam;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

import java.io.IOException;
import java.math.BigDecimal;
import java.net.URI;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.function.UnaryOperator;

/**
 * {@code /console/payments/{paymentId}/refunds}: a payment, what remains of it and its refunds; for an admin, the
 * refund form. The form carries an idempotency key minted when the page was rendered, and its submission runs the
 * API's own {@code create-refund} operation through the engine under that key, scoped to {@code console:<login>}
 * (never a token's {@code sub}), so a double submit of one rendered form refunds once.
 */
@RegisterForReflection
@Path("/console/payments/{paymentId}/refunds")
@Produces(MediaType.TEXT_HTML)
@RolesAllowed({ConsoleUser.SUPPORT, ConsoleUser.ADMIN})
public class ConsoleRefundsResource {

    private static final String AUDIT_ACTION = "refund";
    private static final String AUDIT_TARGET = "payment";
    private static final int MAX_NOTE_LENGTH = 500;
    private static final String AMOUNT_FORMAT = "\\d{1,12}\\.\\d{2}";
    private static final List<String> REASONS = Arrays.stream(Refund.Reason.values()).map(Enum::name).toList();

    /** What the form shows: the values to submit, the key minted for them, and what was wrong with the last ones. */
    public record RefundForm(String amount, String reason, String note, String idempotencyKey, String error) {

        public List<String> reasons() {
            return REASONS;
        }
    }

    public record PaymentFacts(Payment payment, BigDecimal refunded, BigDecimal remaining) {

        public boolean succeeded() {
            return payment.status() == Payment.Status.SUCCEEDED;
        }

        public boolean refundable() {
            return succeeded() && remaining.signum() > 0;
        }

        public String orderHref() {
            return ConsoleLinks.order(payment.orderId());
        }

        public String userHref() {
            return ConsoleLinks.user(payment.userId());
        }
    }

    @CheckedTemplate
    static class Templates {
        static native TemplateInstance refunds(PaymentFacts facts, List<OrderResolutions.RefundLine> refunds,
                                               RefundForm form);
    }

    private final PaymentRows payments;
    private final RefundRows refundRows;
    private final RefundService refunds;
    private final IdempotencyService idempotency;
    private final ConsoleAudit audit;
    private final SecurityIdentity operator;
    private final ObjectMapper json;

    public ConsoleRefundsResource(PaymentRows payments, RefundRows refundRows, RefundService refunds,
                                  IdempotencyService idempotency, ConsoleAudit audit, SecurityIdentity operator,
                                  ObjectMapper json) {
        this.payments = payments;
        this.refundRows = refundRows;
        this.refunds = refunds;
        this.idempotency = idempotency;
        this.audit = audit;
        this.operator = operator;
        this.json = json;
    }

    static String pageOf(String paymentId) {
        return "/console/payments/" + ConsoleLinks.pathSegment(paymentId) + "/refunds";
    }

    /** The form prepared to refund a duplicate charge in full: what remains of it, reason DUPLICATE. */
    static String duplicateRefundOf(String paymentId) {
        return pageOf(paymentId) + "?reason=" + Refund.Reason.DUPLICATE.name() + "#refund-form";
    }

    @GET
    public Response page(@PathParam("paymentId") String paymentId, @QueryParam("reason") String reason) {
        PaymentFacts facts = facts(paymentId);
        String preset = REASONS.contains(reason) ? reason : null;
        return render(200, facts, new RefundForm(facts.remaining().toPlainString(), preset, null, newKey(), null));
    }

    @POST
    @Consumes(MediaType.APPLICATION_FORM_URLENCODED)
    @RolesAllowed(ConsoleUser.ADMIN)
    public Uni<Response> refund(@PathParam("paymentId") String paymentId, @FormParam("amount") String amount,
                                @FormParam("reason") String reason, @FormParam("note") String note,
                                @FormParam("idempotency-key") String key, @Context HttpServerRequest http) {
        io.vertx.core.Context context = Vertx.currentContext();
        String requestedBy = OrderResolutions.CONSOLE_REQUESTER + operator.getPrincipal().getName();
        RequestIds requestIds = RequestIds.of(http);
        return blocking(context, () -> {
            PaymentFacts facts = facts(paymentId);
            String wrong = wrongIn(amount, reason, note);
            if (wrong != null) {
                return Prepared.answered(render(400, facts, new RefundForm(amount, reason, note, key, wrong)));
            }
            try {
                return new Prepared(facts, idempotency.request(RefundService.OPERATION, requestedBy, key, requestIds,
                        Map.of("paymentId", paymentId), body(amount, reason, note), CreateRefundRequest.class,
                        UnaryOperator.identity()), null);
            } catch (ProblemException e) {
                return Prepared.answered(render(400, facts, new RefundForm(amount, reason, note, newKey(),
                        "The form could not be sent as it was (" + e.problem().detail() + "); it is shown again with "
                                + "a new key.")));
            }
        }).chain(prepared -> prepared.answer() != null ? Uni.createFrom().item(prepared.answer())
                : refunds.refund(prepared.request(), paymentId, requestedBy)
                        .onFailure().call(failure -> blocking(context, () -> {
                            audit.recordDone(AUDIT_ACTION, AUDIT_TARGET, paymentId, auditReason(reason, note),
                                    AuditOutcome.FAILED, failure.getClass().getSimpleName());
                            return null;
                        }))
                        .chain(answer -> blocking(context, () -> answered(prepared.facts(), answer, amount, reason,
                                note))));
    }

    /** The form checked before anything is asked of the engine: an answer for the operator, or null when fine. */
    private static String wrongIn(String amount, String reason, String note) {
        if (!REASONS.contains(reason)) {
            return "Choose a reason: DUPLICATE, REQUESTED_BY_CUSTOMER, FRAUDULENT or OTHER.";
        }
        if (amount != null && !amount.isBlank()
                && (!amount.strip().matches(AMOUNT_FORMAT) || new BigDecimal(amount.strip()).signum() <= 0)) {
            return "The amount must be a positive amount with two decimals, such as 1500.00; leave it empty to "
                    + "refund everything that remains.";
        }
        if (note != null && note.length() > MAX_NOTE_LENGTH) {
            return "The note is " + note.length() + " characters long; at most " + MAX_NOTE_LENGTH + " are kept.";
        }
        return null;
    }

    /** The API's body for the form's values, so the same form submitted twice has one fingerprint. */
    private byte[] body(String amount, String reason, String note) {
        ObjectNode body = json.createObjectNode();
        if (amount != null && !amount.isBlank()) {
            body.put("amount", amount.strip());
        }
        body.put("reason", reason);
        if (note != null && !note.isBlank()) {
            body.put("note", note.strip());
        }
        try {
            return json.writeValueAsBytes(body);
        } catch (IOException e) {
            throw new IllegalStateException("a refund body of plain strings could not be written", e);
        }
    }

    /**
     * The engine's answer as the operator sees it: a refund made, replayed or under way leads to the order's story,
     * which shows it with the provider's answer; a refusal shows the form again with a new key and what was wrong.
     */
    private Response answered(PaymentFacts facts, IdempotentResponse answer, String amount, String reason,
                              String note) {
        int status = answer.stored().status();
        String paymentId = facts.payment().paymentId();
        String auditReason = auditReason(reason, note);
        if (status == 201 || status == 202) {
            String refundId = answer.stored().resourceId();
            Refund refund = refundRows.get(refundId);
            boolean replayed = answer.outcome() == IdempotentResponse.Outcome.REPLAYED;
            audit.recordDone(AUDIT_ACTION, AUDIT_TARGET, paymentId, auditReason,
                    replayed ? AuditOutcome.ALREADY_RESOLVED : AuditOutcome.DONE,
                    (replayed ? "the same form again: " : "") + "refund " + refundId + " of " + refund.amount() + " "
                            + refund.currency() + ", " + refund.status());
            return storyOf(facts, refundId);
        }
        if (answer.outcome() == IdempotentResponse.Outcome.IN_PROGRESS) {
            audit.recordDone(AUDIT_ACTION, AUDIT_TARGET, paymentId, auditReason, AuditOutcome.ALREADY_RESOLVED,
                    "the same form again while its refund was under way");
            return storyOf(facts, null);
        }
        String problem = problemDetail(answer.stored().body());
        audit.recordDone(AUDIT_ACTION, AUDIT_TARGET, paymentId, auditReason, AuditOutcome.REFUSED, problem);
        PaymentFacts now = facts(paymentId);
        String error = answer.outcome() == IdempotentResponse.Outcome.CONFLICT
                ? "This form was already submitted with other values, so it was not submitted again. Check the "
                        + "refunds below; the form is shown again with a new key."
                : problem;
        return render(status, now, new RefundForm(amount, reason, note, newKey(), error));
    }

    /** The reason and the note the admin gave, as the audit entry keeps them. */
    private static String auditReason(String reason, String note) {
        return reason + (note == null || note.isBlank() ? "" : ": " + note.strip());
    }

    private String problemDetail(byte[] body) {
        try {
            JsonNode problem = json.readTree(body);
            return problem.path("detail").asText(problem.path("title").asText("The refund was refused."));
        } catch (IOException e) {
            return "The refund was refused.";
        }
    }

    private static Response storyOf(PaymentFacts facts, String refundId) {
        return Response.seeOther(URI.create(ConsoleLinks.order(facts.payment().orderId())
                + (refundId == null ? "#refunds" : "#refund-" + refundId))).build();
    }

    private PaymentFacts facts(String paymentId) {
        String id = ConsoleSearch.query(paymentId);
        Payment payment = payments.find(id).orElseThrow(() -> ConsoleRequestRejected.notFound(
                "There is no payment " + id + ". Search the id in the box above: an order, a key or a user id finds "
                        + "what is kept."));
        return new PaymentFacts(payment, refundRows.refundedOf(id), refundRows.remainingOf(id));
    }

    private Response render(int status, PaymentFacts facts, RefundForm form) {
        List<OrderResolutions.RefundLine> lines = refundRows.ofPayment(facts.payment().paymentId()).stream()
                .map(OrderResolutions::line).toList();
        return HtmlResponses.page(status, Templates.refunds(facts, lines, form));
    }

    private static String newKey() {
        return UUID.randomUUID().toString();
    }

    /** What the blocking first step came to: the engine's request to run, or an answer for the operator now. */
    private record Prepared(PaymentFacts facts, IdempotentRequest<CreateRefundRequest> request, Response answer) {

        static Prepared answered(Response answer) {
            return new Prepared(null, null, answer);
        }
    }

    /** Runs database work on a worker of the request's context and comes back to that context, as the engine does. */
    private static <T> Uni<T> blocking(io.vertx.core.Context context, Callable<T> work) {
        return Uni.createFrom().completionStage(() -> context.executeBlocking(work, false).toCompletionStage());
    }
}
