package dev.onceguard.console;

import dev.onceguard.console.OperationChain.TimelineEntry;
import dev.onceguard.console.OperationChain.Transition;
import dev.onceguard.platform.Cause;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * How a payment operation really went, told from the facts the tables keep: what each request was answered (the
 * request log when it has the request; otherwise what the provider's answer to that request did to the payment),
 * who settled the payment later (a webhook, reconciliation, lease recovery, an admin) and how long it was UNKNOWN.
 * {@link #headline} is null when nothing went wrong, so the verdict keeps its ordinary sentence.
 *
 * @param answers  timeline entries, one per request whose answer is known or known to be missing
 * @param headline the verdict's sentence for a path with trouble in it, or null
 */
public record PaymentStory(List<TimelineEntry> answers, String headline) {

    /** The facts of one create-payment operation, as {@link OperationChains} reads them. */
    record Facts(String recordStatus, String firstRequestId, Instant recordCreatedAt, Instant leaseExpiresAt,
                 String paymentStatus, List<Transition> transitions,
                 List<RequestHistory.Request> requests, int charges, JobSwitches.RecoveryJobs jobs, Instant now,
                 RecordEnding ending) {
    }

    static PaymentStory of(Facts facts) {
        List<TimelineEntry> answers = new ArrayList<>();
        List<Transition> moves = facts.transitions();
        Optional<RequestHistory.Request> firstLogged = facts.requests().stream()
                .filter(r -> r.requestId().equals(facts.firstRequestId())).findFirst();
        for (RequestHistory.Request request : facts.requests()) {
            Optional<Transition> move = lastMoveBy(moves, request.requestId());
            answers.add(new TimelineEntry(request.at(), "Request " + request.requestId() + " " + answered(request, move),
                    move.map(m -> answerDetail(m.toStatus())).orElse("What the client got, from the request log."),
                    null));
        }
        Optional<Transition> firstAnswerMove = lastMoveBy(moves, facts.firstRequestId());
        boolean diedBeforeAnswering = false;
        RecordEnding ending = facts.ending();
        if (firstLogged.isEmpty() && ending.recorded()) {
            if (ending.firstAnswerStatus() != null) {
                answers.add(new TimelineEntry(ending.firstAnsweredAt(), "Request " + facts.firstRequestId()
                        + " answered " + ending.firstAnswerStatus() + firstAnswerMove.map(m -> " " + m.toStatus()).orElse("")
                        + " after " + Verdict.preciseSpan(ending.firstWait()),
                        firstAnswerMove.map(m -> answerDetail(m.toStatus()))
                                .orElse("What the client got, as the operation's own record keeps it."), null));
            } else if (ending.finished() || leaseRanOut(facts)) {
                diedBeforeAnswering = true;
                answers.add(new TimelineEntry(facts.recordCreatedAt(), "Request " + facts.firstRequestId()
                        + ": no answer recorded", "The process died before it answered this request, so the client "
                        + "got no answer" + (ending.finished() ? "; " + ending.finisherText() + " finished the "
                        + "operation later with the same provider key." : "."), ending.finisherHref()));
            }
        } else if (firstLogged.isEmpty()) {
            if (firstAnswerMove.isPresent()) {
                Transition move = firstAnswerMove.get();
                answers.add(new TimelineEntry(move.occurredAt(), "Request " + facts.firstRequestId() + " answered "
                        + answerFor(move.toStatus()), answerDetail(move.toStatus()), null));
            } else if (moves.stream().anyMatch(PaymentStory::byRecovery)
                    || ("PROCESSING".equals(facts.recordStatus()) && leaseRanOut(facts) && "CREATED".equals(facts.paymentStatus()))) {
                diedBeforeAnswering = true;
                answers.add(new TimelineEntry(facts.recordCreatedAt(), "Request " + facts.firstRequestId()
                        + ": no answer recorded", "The process died before the provider's answer was stored, so the "
                        + "client got no answer; the payment was finished later with the same provider key.", null));
            }
        }
        for (Transition move : moves) {
            if (Cause.PROVIDER_ANSWER.equals(move.cause()) && move.causeRef() != null
                    && !move.causeRef().equals(facts.firstRequestId())
                    && facts.requests().stream().noneMatch(r -> r.requestId().equals(move.causeRef()))) {
                answers.add(new TimelineEntry(move.occurredAt(), "Retry " + move.causeRef() + " answered "
                        + answerFor(move.toStatus()), "The retry resumed the operation and asked the provider again "
                        + "with the same provider key.", null));
            }
        }
        return new PaymentStory(List.copyOf(answers), headline(facts, diedBeforeAnswering));
    }

    private static String headline(Facts facts, boolean diedBeforeAnswering) {
        List<Transition> moves = facts.transitions();
        Optional<Transition> intoUnknown = moves.stream().filter(t -> "UNKNOWN".equals(t.toStatus())).findFirst();
        Optional<Transition> settled = moves.stream().filter(t -> isFinal(t.toStatus())).findFirst();
        String charges = Verdict.charges(facts.charges());
        RecordEnding ending = facts.ending();
        String told = ending.firstAnswerStatus() == null ? "" : " The client was answered "
                + ending.firstAnswerStatus() + (ending.firstAnswerStatus() == 202 ? " UNKNOWN" : "") + " after "
                + Verdict.preciseSpan(ending.firstWait()) + (ending.finished() && !ending.byItsOwnAnswer()
                ? "; " + ending.finisherText() + " finished the operation." : ".");
        if (intoUnknown.isPresent()) {
            String start = "The provider did not answer in time; the payment ";
            if (settled.isPresent()) {
                return start + "was UNKNOWN for " + Verdict.preciseSpan(Duration.between(intoUnknown.get().occurredAt(),
                        settled.get().occurredAt())) + " until " + settler(settled.get()) + " settled it"
                        + (settled.get().toStatus().equals("SUCCEEDED") ? "" : " as " + settled.get().toStatus())
                        + ": " + charges + "." + told;
            }
            return start + "has been UNKNOWN for " + Verdict.preciseSpan(Duration.between(intoUnknown.get().occurredAt(),
                    facts.now())) + " and is not settled yet; " + facts.jobs().whatFinishesAPayment()
                    + ", never with a second charge." + told;
        }
        if (diedBeforeAnswering && ending.recorded() && ending.finished()) {
            return "The process died before answering; " + ending.finisherText() + " finished it "
                    + Verdict.span(Duration.between(facts.recordCreatedAt(), ending.completedAt()))
                    + " later with the provider’s own answer: " + charges + "."
                    + settled.filter(move -> !settledByFinisher(move, ending))
                    .map(move -> " " + Verdict.capitalized(settler(move)) + " had settled the payment.").orElse("");
        }
        if (diedBeforeAnswering) {
            if (settled.isPresent()) {
                return "The process died before the client got an answer; " + settler(settled.get()) + " finished the "
                        + "payment " + Verdict.span(Duration.between(facts.recordCreatedAt(), settled.get().occurredAt()))
                        + " later with the same provider key: " + charges + ".";
            }
            return "The process died before the client got an answer and the payment is still "
                    + facts.paymentStatus() + "; " + facts.jobs().whatFinishesAPayment() + ", never with a second charge.";
        }
        if ("REQUIRES_ACTION".equals(facts.paymentStatus())) {
            return "The customer has to pass the bank's 3-D Secure challenge: the client was answered 202 "
                    + "REQUIRES_ACTION, and the provider's webhook settles the payment once the customer has.";
        }
        if (settled.isPresent() && Cause.ADMIN.equals(settled.get().cause())) {
            return "An admin settled the payment (" + settler(settled.get()) + "): " + charges + ".";
        }
        return null;
    }

    /** Who settled the payment, in words: "its payment.succeeded webhook", "reconciliation (run 12)". */
    static String settler(Transition move) {
        String ref = move.causeRef() == null ? "" : move.causeRef();
        return switch (move.cause()) {
            case Cause.WEBHOOK -> move.eventType() == null ? "its webhook (event " + ref + ")"
                    : "its " + move.eventType() + " webhook";
            case Cause.RECONCILIATION -> "reconciliation (run " + ref + ")";
            case Cause.LEASE_RECOVERY -> "lease recovery (run " + ref + ")";
            case Cause.ADMIN -> "an admin's “send to reconciliation” (audit entry " + ref
                    + (move.admin() == null ? "" : ", " + move.admin().text()) + ")";
            case Cause.PROVIDER_ANSWER -> "the provider's answer to request " + ref;
            default -> move.cause();
        };
    }

    /** Whether {@code move} was made by what finished the record (then naming it once is enough). */
    private static boolean settledByFinisher(Transition move, RecordEnding ending) {
        return move.cause().equals(ending.finishedBy()) && move.causeRef() != null
                && move.causeRef().equals(ending.finishedByRef());
    }

    private static Optional<Transition> lastMoveBy(List<Transition> moves, String requestId) {
        return moves.stream().filter(move -> Cause.PROVIDER_ANSWER.equals(move.cause())
                && requestId.equals(move.causeRef())).reduce((earlier, later) -> later);
    }

    private static boolean byRecovery(Transition move) {
        return Cause.RECONCILIATION.equals(move.cause()) || Cause.LEASE_RECOVERY.equals(move.cause())
                || Cause.ADMIN.equals(move.cause());
    }

    private static boolean leaseRanOut(Facts facts) {
        return facts.leaseExpiresAt() != null && !facts.leaseExpiresAt().isAfter(facts.now());
    }

    private static boolean isFinal(String status) {
        return status.equals("SUCCEEDED") || status.equals("FAILED") || status.equals("CANCELED");
    }

    private static String answerFor(String paymentStatus) {
        return switch (paymentStatus) {
            case "UNKNOWN" -> "202 UNKNOWN";
            case "REQUIRES_ACTION" -> "202 REQUIRES_ACTION";
            default -> "201 " + paymentStatus;
        };
    }

    private static String answerDetail(String paymentStatus) {
        return switch (paymentStatus) {
            case "UNKNOWN" -> "The provider did not answer in time: the client was told the outcome is unknown and to "
                    + "retry with the same key.";
            case "REQUIRES_ACTION" -> "The client got what it needs for the customer's 3-D Secure challenge.";
            default -> "The provider's answer settled the payment in the request.";
        };
    }

    private static String answered(RequestHistory.Request request, Optional<Transition> move) {
        String status = request.httpStatus() == null ? "no status" : String.valueOf(request.httpStatus());
        return switch (request.outcome()) {
            case "EXECUTED" -> "answered " + status + move.map(m -> " " + m.toStatus()).orElse("");
            case "REPLAYED" -> "replayed the stored " + status;
            case "CONFLICT" -> "refused " + status + ", the key was reused with another payload";
            case "IN_PROGRESS" -> "answered " + status + ", the first request was still running";
            default -> "refused " + status;
        };
    }
}
