package dev.onceguard.outbox;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.persistence.EntityManager;
import jakarta.transaction.Transactional;
import org.hibernate.query.NativeQuery;
import org.hibernate.type.StandardBasicTypes;

import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.UUID;

/**
 * The relay's conditional updates on {@code outbox_events}. Every change after the claim names the claim token,
 * so only the relay that holds the current claim can finish an event.
 */
@ApplicationScoped
class OutboxRows {

    private final EntityManager em;
    private final ObjectMapper json;

    OutboxRows(EntityManager em, ObjectMapper json) {
        this.em = em;
        this.json = json;
    }

    /**
     * Takes up to {@code limit} due PENDING events that no other transaction holds, counts the attempt and pushes
     * them out of everyone's reach until {@code leaseEnd}.
     */
    @Transactional(Transactional.TxType.MANDATORY)
    List<OutboxEvent> claim(int limit, Instant now, Instant leaseEnd, UUID token) {
        List<Object[]> rows = em.createNativeQuery("""
                        UPDATE outbox_events o
                           SET attempts = o.attempts + 1, next_attempt_at = :leaseEnd, claim_token = :token
                          FROM (SELECT id FROM outbox_events
                                 WHERE status = 'PENDING' AND next_attempt_at <= :now
                                 ORDER BY next_attempt_at, id
                                 LIMIT :limit
                                 FOR UPDATE SKIP LOCKED) due
                         WHERE o.id = due.id
                        RETURNING o.id, o.event_type, o.aggregate_type, o.aggregate_id, CAST(o.payload AS text) AS payload,
                                  o.attempts, o.created_at""")
                .unwrap(NativeQuery.class)
                .addScalar("id", StandardBasicTypes.LONG)
                .addScalar("event_type", StandardBasicTypes.STRING)
                .addScalar("aggregate_type", StandardBasicTypes.STRING)
                .addScalar("aggregate_id", StandardBasicTypes.STRING)
                .addScalar("payload", StandardBasicTypes.STRING)
                .addScalar("attempts", StandardBasicTypes.INTEGER)
                .addScalar("created_at", StandardBasicTypes.INSTANT)
                .setParameter("leaseEnd", leaseEnd)
                .setParameter("token", token)
                .setParameter("now", now)
                .setParameter("limit", limit)
                .getResultList();
        return rows.stream()
                .map(r -> new OutboxEvent((Long) r[0], (String) r[1], (String) r[2], (String) r[3], parse((String) r[4]),
                        (Integer) r[5], (Instant) r[6]))
                .sorted(Comparator.comparingLong(OutboxEvent::id))
                .toList();
    }

    /** @return whether this claim still held the event */
    @Transactional(Transactional.TxType.MANDATORY)
    boolean markDone(long id, UUID token, Instant now) {
        return em.createNativeQuery("""
                        UPDATE outbox_events SET status = 'DONE', processed_at = :now, claim_token = NULL
                         WHERE id = :id AND status = 'PENDING' AND claim_token = :token""")
                .setParameter("now", now)
                .setParameter("id", id)
                .setParameter("token", token)
                .executeUpdate() == 1;
    }

    /** @return whether this claim still held the event */
    @Transactional(Transactional.TxType.MANDATORY)
    boolean markFailed(long id, UUID token, String error, Instant nextAttemptAt, boolean dead) {
        return em.createNativeQuery("""
                        UPDATE outbox_events
                           SET status = :status, last_error = :error, next_attempt_at = :next, claim_token = NULL
                         WHERE id = :id AND status = 'PENDING' AND claim_token = :token""")
                .setParameter("status", dead ? "DEAD" : "PENDING")
                .setParameter("error", error)
                .setParameter("next", nextAttemptAt)
                .setParameter("id", id)
                .setParameter("token", token)
                .executeUpdate() == 1;
    }

    /**
     * Gives back events this claim holds but never started: due now, the attempt the claim counted undone.
     *
     * @return how many were still held
     */
    @Transactional(Transactional.TxType.MANDATORY)
    int release(List<Long> ids, UUID token, Instant now) {
        return em.createNativeQuery("""
                        UPDATE outbox_events SET attempts = attempts - 1, next_attempt_at = :now, claim_token = NULL
                         WHERE id IN (:ids) AND status = 'PENDING' AND claim_token = :token""")
                .setParameter("now", now)
                .setParameter("ids", ids)
                .setParameter("token", token)
                .executeUpdate();
    }

    /** A DEAD event becomes due now with all its attempts back; any other state is left alone. */
    @Transactional(Transactional.TxType.MANDATORY)
    boolean revive(long id, Instant now) {
        return em.createNativeQuery("""
                        UPDATE outbox_events SET status = 'PENDING', attempts = 0, next_attempt_at = :now
                         WHERE id = :id AND status = 'DEAD'""")
                .setParameter("now", now)
                .setParameter("id", id)
                .executeUpdate() == 1;
    }

    private JsonNode parse(String payload) {
        try {
            return json.readTree(payload);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("outbox payload is not JSON", e);
        }
    }
}
