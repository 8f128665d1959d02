package dev.onceguard.console;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;

import static dev.onceguard.console.ConsoleReads.nullableInt;
import static dev.onceguard.platform.SqlRows.instant;

/** One idempotency record as the lists show it, read from the columns of {@code IdempotencyRecordQueries}' lists. */
public record OperationRow(long id, String key, String userId, String operation, String status, String fingerprintPrefix,
                           int replayCount, String resourceType, String resourceId, Integer responseStatus,
                           Instant createdAt, Instant expiresAt, Instant leaseExpiresAt,
                           List<DoubleSubmission> doubleSubmissions) {

    static final List<CsvExport.Column<OperationRow>> CSV = List.of(
            new CsvExport.Column<>("record_id", OperationRow::id),
            new CsvExport.Column<>("idempotency_key", OperationRow::key),
            new CsvExport.Column<>("user_id", OperationRow::userId),
            new CsvExport.Column<>("operation", OperationRow::operation),
            new CsvExport.Column<>("status", OperationRow::status),
            new CsvExport.Column<>("response_status", OperationRow::responseStatus),
            new CsvExport.Column<>("fingerprint_prefix", OperationRow::fingerprintPrefix),
            new CsvExport.Column<>("replay_count", OperationRow::replayCount),
            new CsvExport.Column<>("resource_type", OperationRow::resourceType),
            new CsvExport.Column<>("resource_id", OperationRow::resourceId),
            new CsvExport.Column<>("created_at", OperationRow::createdAt),
            new CsvExport.Column<>("expires_at", OperationRow::expiresAt));

    /** Another record of the same user with the same operation and fingerprint under a different key, close in time. */
    public record DoubleSubmission(long otherId, String otherKey, long secondsApart) {

        public String href() {
            return ConsoleLinks.operation(otherId);
        }
    }

    static OperationRow of(ResultSet row) throws SQLException {
        return new OperationRow(row.getLong("id"), row.getString("idempotency_key"), row.getString("user_id"),
                row.getString("operation"), row.getString("status"), row.getString("fingerprint_prefix"),
                row.getInt("replay_count"), row.getString("resource_type"), row.getString("resource_id"),
                nullableInt(row, "response_status"), instant(row, "created_at"), instant(row, "expires_at"),
                instant(row, "lease_expires_at"), List.of());
    }

    OperationRow withDoubleSubmissions(List<DoubleSubmission> found) {
        return new OperationRow(id, key, userId, operation, status, fingerprintPrefix, replayCount, resourceType,
                resourceId, responseStatus, createdAt, expiresAt, leaseExpiresAt, List.copyOf(found));
    }

    public boolean possibleDoubleSubmission() {
        return !doubleSubmissions.isEmpty();
    }

    /** PROCESSING whose lease has run out: nobody is working on it until a retry or lease recovery takes it over. */
    public boolean stuck() {
        return "PROCESSING".equals(status) && leaseExpiresAt != null && !leaseExpiresAt.isAfter(Instant.now());
    }

    public String statusClass() {
        return StatusBadges.idempotencyRecord(status, leaseExpiresAt);
    }

    public boolean hasResource() {
        return resourceType != null && resourceId != null;
    }

    public String href() {
        return ConsoleLinks.operation(id);
    }

    public String userHref() {
        return ConsoleLinks.user(userId);
    }
}
