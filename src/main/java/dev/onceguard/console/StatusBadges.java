package dev.onceguard.console;

import java.time.Instant;

/**
 * The badge class ({@code st-ok}, {@code st-warn}, {@code st-bad}, {@code st-info}, {@code st-neutral}) of every status
 * the console shows, the same on every page: colour for the eye, the status text inside the badge for everyone.
 */
final class StatusBadges {

    private StatusBadges() {
    }

    /** A PROCESSING record whose lease has run out is stuck: nobody works on it until a retry or lease recovery. */
    static String idempotencyRecord(String status, Instant leaseExpiresAt) {
        return switch (status) {
            case "COMPLETED" -> "st-ok";
            case "FAILED" -> "st-warn";
            default -> leaseExpiresAt != null && !leaseExpiresAt.isAfter(Instant.now()) ? "st-bad" : "st-info";
        };
    }

    static String payment(String status) {
        return switch (status) {
            case "SUCCEEDED" -> "st-ok";
            case "FAILED", "CANCELED" -> "st-neutral";
            case "UNKNOWN" -> "st-bad";
            default -> "st-info";
        };
    }

    static String webhookEvent(String status) {
        return switch (status) {
            case "PROCESSED" -> "st-ok";
            case "IGNORED" -> "st-neutral";
            case "FAILED", "REJECTED" -> "st-bad";
            case "PENDING_MATCH" -> "st-warn";
            default -> "st-info";
        };
    }

    /** A PENDING event with attempts behind it is retrying. */
    static String outboxEvent(String status, int attempts) {
        return switch (status) {
            case "DONE" -> "st-ok";
            case "DEAD" -> "st-bad";
            default -> attempts > 0 ? "st-warn" : "st-info";
        };
    }

    static String jobRun(String outcome) {
        return "SUCCEEDED".equals(outcome) ? "st-ok" : "st-bad";
    }
}
