package dev.onceguard.outbox;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.onceguard.platform.SqlRows;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.transaction.Transactional;

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

    /** A claimed event and the trace context of the change that wrote it (null: none known). */
    record Claimed(OutboxEvent event, String traceparent) {
    }

    private final SqlRows sql;
    private final ObjectMapper json;

    OutboxRows(SqlRows sql, ObjectMapper json) {
        this.sql = sql;
        this.json = json;
    }

    /**
     * Takes up to {@code limit} due PENDING events that no other transaction holds, counts the attempt and pushes
     * them out of everyone's reach until {@code leaseEnd}.
     */
    @Transactional(Transactional.TxType.MANDATORY)
    List<Claimed> claim(int limit, Instant now, Instant leaseEnd, UUID token) {
        return sql.list("""
                        UPDATE outbox_events o
                           SET attempts = o.attempts + 1, next_attempt_at = ?::timestamptz, claim_token = ?
                          FROM (SELECT id FROM outbox_events
                                 WHERE status = 'PENDING' AND next_attempt_at <= ?::timestamptz
                                 ORDER BY next_attempt_at, id
                                 LIMIT ?
                                 FOR UPDATE SKIP LOCKED) due
                         WHERE o.id = due.id
                        RETURNING o.id, o.event_type, o.aggregate_type, o.aggregate_id,
                                  CAST(o.payload AS text) AS payload, o.attempts, o.created_at, o.traceparent""",
                        row -> new Claimed(new OutboxEvent(row.getLong("id"), row.getString("event_type"),
                                row.getString("aggregate_type"), row.getString("aggregate_id"),
                                parse(row.getString("payload")), row.getInt("attempts"),
                                SqlRows.instant(row, "created_at")), row.getString("traceparent")),
                        leaseEnd, token, now, limit)
                .stream()
                .sorted(Comparator.comparingLong(claimed -> claimed.event().id()))
                .toList();
    }

    /** @return whether this claim still held the event */
    @Transactional(Transactional.TxType.MANDATORY)
    boolean markDone(long id, UUID token, Instant now) {
        return sql.update("""
                UPDATE outbox_events SET status = 'DONE', processed_at = ?::timestamptz, claim_token = NULL
                 WHERE id = ? AND status = 'PENDING' AND claim_token = ?""", now, id, token) == 1;
    }

    /** @return whether this claim still held the event */
    @Transactional(Transactional.TxType.MANDATORY)
    boolean markFailed(long id, UUID token, String error, Instant nextAttemptAt, boolean dead) {
        return sql.update("""
                UPDATE outbox_events
                   SET status = ?, last_error = ?, next_attempt_at = ?::timestamptz, claim_token = NULL
                 WHERE id = ? AND status = 'PENDING' AND claim_token = ?""",
                dead ? "DEAD" : "PENDING", error, nextAttemptAt, id, token) == 1;
    }

    /**
     * Gives back events this claim holds but never started: due now, the attempt the claim counted undone.
     *
     * @return how many were still held
     */
    @Transactional(Transactional.TxType.MANDATORY)
    int release(List<Long> ids, UUID token, Instant now) {
        return sql.update("""
                UPDATE outbox_events SET attempts = attempts - 1, next_attempt_at = ?::timestamptz, claim_token = NULL
                 WHERE id = ANY(?) AND status = 'PENDING' AND claim_token = ?""",
                now, ids.toArray(Long[]::new), token);
    }

    /** A DEAD event becomes due now with all its attempts back; any other state is left alone. */
    @Transactional(Transactional.TxType.MANDATORY)
    boolean revive(long id, Instant now) {
        return sql.update("""
                UPDATE outbox_events SET status = 'PENDING', attempts = 0, next_attempt_at = ?::timestamptz
                 WHERE id = ? AND status = 'DEAD'""", now, id) == 1;
    }

    private JsonNode parse(String payload) {
        try {
            return json.readTree(payload);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("outbox payload is not JSON", e);
        }
    }
}
