package dev.onceguard.idempotency;

/**
 * Where an operation of several atomic phases stands: its recovery point and the resource it is working on. Saved on
 * the record by the engine when a phase comes to a new recovery point, so a retry or a recovery job goes on from
 * here instead of starting again.
 */
public record Checkpoint(String recoveryPoint, String resourceType, String resourceId) {
}
