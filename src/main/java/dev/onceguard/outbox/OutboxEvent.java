package dev.onceguard.outbox;

import com.fasterxml.jackson.databind.JsonNode;

import java.time.Instant;

/** One claimed outbox event as handlers see it; {@code attempts} counts this attempt. */
public record OutboxEvent(long id, String eventType, String aggregateType, String aggregateId, JsonNode payload,
                          int attempts, Instant createdAt) {
}
