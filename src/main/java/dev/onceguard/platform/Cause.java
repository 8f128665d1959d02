package dev.onceguard.platform;

/**
 * Why a state changed, as {@code state_transitions} keeps it: the kind of actor and the fact that names the
 * occasion (the request whose provider call answered, the webhook event, the job run, the audit entry).
 *
 * @param ref null only when the kind carries no further fact
 */
public record Cause(String kind, String ref) {

    public static final String PROVIDER_ANSWER = "provider_answer";
    public static final String WEBHOOK = "webhook";
    public static final String RECONCILIATION = "reconciliation";
    public static final String LEASE_RECOVERY = "lease_recovery";
    public static final String ADMIN = "admin";
    public static final String FULFILMENT = "fulfilment";
    public static final String REQUEST = "request";
    public static final String UNPAID_ORDER_EXPIRY = "unpaid_order_expiry";

    /** The provider's synchronous answer to the call made for request {@code requestId}. */
    public static Cause providerAnswer(String requestId) {
        return new Cause(PROVIDER_ANSWER, requestId);
    }

    public static Cause webhook(String eventId) {
        return new Cause(WEBHOOK, eventId);
    }

    public static Cause reconciliation(long jobRunId) {
        return new Cause(RECONCILIATION, String.valueOf(jobRunId));
    }

    public static Cause leaseRecovery(long jobRunId) {
        return new Cause(LEASE_RECOVERY, String.valueOf(jobRunId));
    }

    public static Cause unpaidOrderExpiry(long jobRunId) {
        return new Cause(UNPAID_ORDER_EXPIRY, String.valueOf(jobRunId));
    }

    public static Cause admin(long auditId) {
        return new Cause(ADMIN, String.valueOf(auditId));
    }

    /** An API request of the user (or back-office system) itself, such as the owner canceling an order. */
    public static Cause request(String requestId) {
        return new Cause(REQUEST, requestId);
    }

    /** The delivery of outbox event {@code outboxEventId}. */
    public static Cause fulfilment(long outboxEventId) {
        return new Cause(FULFILMENT, String.valueOf(outboxEventId));
    }

    @Override
    public String toString() {
        return ref == null ? kind : kind + " " + ref;
    }
}
