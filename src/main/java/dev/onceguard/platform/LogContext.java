package dev.onceguard.platform;

import org.jboss.logging.MDC;

/**
 * The MDC fields every log line carries once they are known (a JSON line lists them under "mdc"). On a request they
 * live in the request's own context; a scheduled job sets them with {@link #put} and removes them when done.
 */
public final class LogContext {

    /** The id the service generated for the request; unique. */
    public static final String REQUEST_ID = "requestId";
    /** The {@code X-Request-Id} the client sent, when it sent a usable one; any client may send any. */
    public static final String CLIENT_REQUEST_ID = "clientRequestId";
    public static final String USER_ID = "userId";
    public static final String IDEMPOTENCY_KEY = "idempotencyKey";
    public static final String OPERATION = "operation";
    public static final String ORDER_ID = "orderId";
    public static final String PAYMENT_ID = "paymentId";
    public static final String PROVIDER_EVENT_ID = "providerEventId";
    public static final String OUTBOX_EVENT_ID = "outboxEventId";

    private LogContext() {
    }

    public static void put(String field, Object value) {
        if (value != null) {
            MDC.put(field, value.toString());
        }
    }
}
