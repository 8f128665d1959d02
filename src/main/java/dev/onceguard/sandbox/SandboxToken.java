package dev.onceguard.sandbox;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/** The sandbox's test payment method tokens, like test cards: each chooses how a payment and its webhooks behave. */
enum SandboxToken {

    SUCCESS("tok_success", SandboxPayment.Status.SUCCEEDED, Answer.AT_ONCE),
    DECLINE("tok_decline", SandboxPayment.Status.FAILED, Answer.AT_ONCE),
    PENDING("tok_pending", SandboxPayment.Status.PENDING, Answer.AT_ONCE),
    TIMEOUT_AFTER_COMMIT("tok_timeout_after_commit", SandboxPayment.Status.SUCCEEDED, Answer.TOO_LATE),
    ERROR_AFTER_COMMIT("tok_error_after_commit", SandboxPayment.Status.SUCCEEDED, Answer.SERVER_ERROR),
    DUPLICATE_WEBHOOKS("tok_duplicate_webhooks", SandboxPayment.Status.SUCCEEDED, Answer.AT_ONCE),
    OUT_OF_ORDER("tok_out_of_order", SandboxPayment.Status.SUCCEEDED, Answer.AT_ONCE),
    /** Pays; every refund of the payment fails. */
    REFUND_FAILS("tok_refund_fails", SandboxPayment.Status.SUCCEEDED, Answer.AT_ONCE),
    /** Pays; every refund of the payment commits, then answers too late for the caller's timeout. */
    REFUND_TIMEOUT("tok_refund_timeout", SandboxPayment.Status.SUCCEEDED, Answer.AT_ONCE);

    /** How the first create answers, after its payment committed. A replay with the same key always answers at once. */
    enum Answer { AT_ONCE, TOO_LATE, SERVER_ERROR }

    /** One event to deliver {@code copies} times, due {@code after} the payment was created. */
    record PlannedEvent(SandboxEventType type, Duration after, int copies) {
    }

    static final int DUPLICATE_COPIES = 3;

    final String wireName;
    final SandboxPayment.Status initialStatus;
    final Answer answer;

    SandboxToken(String wireName, SandboxPayment.Status initialStatus, Answer answer) {
        this.wireName = wireName;
        this.initialStatus = initialStatus;
        this.answer = answer;
    }

    static Optional<SandboxToken> of(String wireName) {
        return Arrays.stream(values()).filter(t -> t.wireName.equals(wireName)).findFirst();
    }

    static List<String> wireNames() {
        return Arrays.stream(values()).map(t -> t.wireName).toList();
    }

    /** When a too-late answer comes: a second after the caller gave up waiting. */
    static Duration tooLate(Duration callerTimeout) {
        return callerTimeout.plusSeconds(1);
    }

    /**
     * The events of a payment with this token. A provider that answers too late sends its webhook after that late
     * answer, when the caller has already given up and holds the payment as UNKNOWN.
     */
    List<PlannedEvent> events(SandboxConfig config, Duration callerTimeout) {
        return switch (this) {
            case DECLINE -> List.of(new PlannedEvent(SandboxEventType.CANCELED, Duration.ZERO, 1));
            case PENDING -> List.of(new PlannedEvent(SandboxEventType.SUCCEEDED, config.pendingDelay(), 1));
            case DUPLICATE_WEBHOOKS -> List.of(new PlannedEvent(SandboxEventType.SUCCEEDED, Duration.ZERO, DUPLICATE_COPIES));
            case OUT_OF_ORDER -> List.of(new PlannedEvent(SandboxEventType.SUCCEEDED, Duration.ZERO, 1),
                    new PlannedEvent(SandboxEventType.PENDING, config.staleEventDelay(), 1));
            case TIMEOUT_AFTER_COMMIT -> List.of(new PlannedEvent(SandboxEventType.SUCCEEDED, tooLate(callerTimeout), 1));
            case SUCCESS, ERROR_AFTER_COMMIT, REFUND_FAILS, REFUND_TIMEOUT ->
                    List.of(new PlannedEvent(SandboxEventType.SUCCEEDED, Duration.ZERO, 1));
        };
    }
}
