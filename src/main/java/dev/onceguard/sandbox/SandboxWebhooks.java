package dev.onceguard.sandbox;

import dev.onceguard.platform.Ids;
import dev.onceguard.platform.SqlRows;
import dev.onceguard.platform.Timestamps;
import dev.onceguard.platform.TraceContexts;
import io.quarkus.runtime.annotations.RegisterForReflection;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.transaction.Transactional;

import java.time.Instant;
import java.util.Map;

/**
 * Writes the sandbox's webhook events into its outbox, in the caller's transaction, each delivery with the trace
 * context of the request that caused it.
 */
@ApplicationScoped
public class SandboxWebhooks {

    /** The event body of the contract; field order is the order on the wire. */
    @RegisterForReflection
    record EventBody(String id, String type, String created, Data data) {
        record Data(EventObject object) {
        }

        record EventObject(String id, String status, String amount, String currency, Map<String, String> metadata) {
        }
    }

    /** The body of a refund event; its object is the refund, as the sandbox API shows it. */
    @RegisterForReflection
    record RefundEventBody(String id, String type, String created, Data data) {
        record Data(SandboxRefundView object) {
        }
    }

    private final SqlRows sql;
    private final SandboxJson json;
    private final Ids ids;

    public SandboxWebhooks(SqlRows sql, SandboxJson json, Ids ids) {
        this.sql = sql;
        this.json = json;
        this.ids = ids;
    }

    /**
     * Schedules one event about {@code payment}, due at {@code dueAt}, to be delivered {@code copies} times
     * under one event id.
     *
     * @return the event id
     */
    @Transactional(Transactional.TxType.MANDATORY)
    public String schedule(SandboxPayment payment, SandboxEventType type, Instant dueAt, int copies) {
        String eventId = ids.next("evt");
        String body = json.write(new EventBody(eventId, type.wireName, Timestamps.format(dueAt), new EventBody.Data(
                new EventBody.EventObject(payment.id(), type.objectStatus, payment.amount().setScale(2).toPlainString(),
                        payment.currency(), payment.metadata() == null ? Map.of() : payment.metadata()))));
        insertCopies(eventId, payment.id(), type, body, dueAt, copies);
        return eventId;
    }

    /** Schedules one event about {@code refund}, due at {@code dueAt}, delivered once. */
    @Transactional(Transactional.TxType.MANDATORY)
    public void scheduleRefund(SandboxRefundView refund, SandboxEventType type, Instant dueAt) {
        String eventId = ids.next("evt");
        insertCopies(eventId, refund.payment(), type, json.write(new RefundEventBody(eventId, type.wireName,
                Timestamps.format(dueAt), new RefundEventBody.Data(refund))), dueAt, 1);
    }

    private void insertCopies(String eventId, String paymentId, SandboxEventType type, String body, Instant dueAt,
                              int copies) {
        sql.update("""
                INSERT INTO sandbox_webhook_deliveries (event_id, copy, payment_id, event_type, body, due_at,
                    next_attempt_at, created_at, traceparent)
                SELECT ?, copy, ?, ?, ?, ?::timestamptz, ?::timestamptz, ?::timestamptz, ?::text
                  FROM generate_series(1, ?) AS copy""",
                eventId, paymentId, type.wireName, body, dueAt, dueAt, Timestamps.now(),
                TraceContexts.currentTraceparent(), copies);
    }
}
