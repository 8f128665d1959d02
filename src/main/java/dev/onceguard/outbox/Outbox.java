package dev.onceguard.outbox;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.onceguard.platform.StateMachine;
import dev.onceguard.platform.Timestamps;
import dev.onceguard.platform.TraceContexts;
import jakarta.enterprise.context.ApplicationScoped;

import java.util.HashMap;
import java.util.Map;

/**
 * Writes outbox events in the statement of the state change they announce, so an event exists exactly when it does,
 * each with the trace context of that change, which the relay's effects continue.
 */
@ApplicationScoped
public class Outbox {

    private final ObjectMapper json;

    public Outbox(ObjectMapper json) {
        this.json = json;
    }

    /**
     * Adds {@code eventType} for the aggregate when a state move is accepted, in the move's own statement, unless it
     * was added before: each event type is announced once per aggregate (a UNIQUE constraint decides). The event keeps
     * the {@code traceparent} of the current span, the change that announces it.
     */
    public StateMachine.Consequence enqueuedOnMove(String eventType, String aggregateType, String aggregateId,
                                                   Map<String, Object> payload) {
        Map<String, Object> parameters = new HashMap<>();
        parameters.put("outboxEventType", eventType);
        parameters.put("outboxAggregateType", aggregateType);
        parameters.put("outboxAggregateId", aggregateId);
        parameters.put("outboxPayload", toJson(payload));
        parameters.put("outboxAt", Timestamps.now());
        parameters.put("outboxTraceparent", TraceContexts.currentTraceparent());
        return new StateMachine.Consequence("""
                INSERT INTO outbox_events (event_type, aggregate_type, aggregate_id, payload, next_attempt_at,
                                           created_at, traceparent)
                SELECT :outboxEventType, :outboxAggregateType, :outboxAggregateId, CAST(:outboxPayload AS jsonb),
                       :outboxAt, :outboxAt, CAST(:outboxTraceparent AS text)
                  FROM moved
                ON CONFLICT (event_type, aggregate_type, aggregate_id) DO NOTHING""", parameters);
    }

    private String toJson(Map<String, Object> payload) {
        try {
            return json.writeValueAsString(payload);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("outbox payload is not serializable", e);
        }
    }
}
