package dev.onceguard.idempotency;

/**
 * Where a multi-phase operation stands: its recovery point and the resource it is working on. Saved on the record
 * at the end of each phase, so a retry or the recovery job resumes from here instead of starting again.
 */
public record Checkpoint(String recoveryPoint, String resourceType, String resourceId) {
}
