package dev.onceguard.outbox;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.onceguard.platform.Timestamps;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.persistence.EntityManager;
import jakarta.transaction.Transactional;

import java.time.Instant;
import java.util.Map;

/** Writes outbox events in the caller's transaction, so an event exists exactly when its state change does. */
@ApplicationScoped
public class Outbox {

    private final EntityManager em;
    private final ObjectMapper json;

    public Outbox(EntityManager em, ObjectMapper json) {
        this.em = em;
        this.json = json;
    }

    /**
     * Adds {@code eventType} for the aggregate unless it was added before: each event type is announced once
     * per aggregate (a UNIQUE constraint decides).
     *
     * @return whether this call added it
     */
    @Transactional(Transactional.TxType.MANDATORY)
    public boolean enqueue(String eventType, String aggregateType, String aggregateId, Map<String, Object> payload) {
        Instant now = Timestamps.now();
        return em.createNativeQuery("""
                        INSERT INTO outbox_events (event_type, aggregate_type, aggregate_id, payload, next_attempt_at, created_at)
                        VALUES (:eventType, :aggregateType, :aggregateId, CAST(:payload AS jsonb), :now, :now)
                        ON CONFLICT (event_type, aggregate_type, aggregate_id) DO NOTHING""")
                .setParameter("eventType", eventType)
                .setParameter("aggregateType", aggregateType)
                .setParameter("aggregateId", aggregateId)
                .setParameter("payload", toJson(payload))
                .setParameter("now", now)
                .executeUpdate() == 1;
    }

    private String toJson(Map<String, Object> payload) {
        try {
            return json.writeValueAsString(payload);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("outbox payload is not serializable", e);
        }
    }
}
