package dev.onceguard.fulfilment;

import dev.onceguard.platform.SqlRows;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.transaction.Transactional;

import java.time.Instant;

/**
 * Every statement on the effects' tables ({@code licenses}, {@code notifications}, {@code loyalty_ledger}), as plain
 * JDBC in the caller's transaction ({@link SqlRows}). Each write is an insert its business key's UNIQUE constraint
 * turns into a no-op the second time, and says whether it wrote.
 */
@ApplicationScoped
public class FulfilmentRows {

    private final SqlRows sql;

    public FulfilmentRows(SqlRows sql) {
        this.sql = sql;
    }

    /** @return false when the order already has its license */
    boolean issueLicense(String licenseId, String orderId, String userId, Instant now) {
        return sql.update("""
                INSERT INTO licenses (license_id, order_id, user_id, created_at) VALUES (?, ?, ?, ?)
                ON CONFLICT (order_id) DO NOTHING""", licenseId, orderId, userId, now) == 1;
    }

    /** @return false when a notification with this dedupe key was already recorded */
    boolean recordNotification(String notificationId, String dedupeKey, String kind, String orderId, String userId,
                               Instant now) {
        return sql.update("""
                INSERT INTO notifications (notification_id, dedupe_key, kind, order_id, user_id, created_at)
                VALUES (?, ?, ?, ?, ?, ?)
                ON CONFLICT (dedupe_key) DO NOTHING""", notificationId, dedupeKey, kind, orderId, userId, now) == 1;
    }

    /** @return false when the order was already credited (or debited, for a negative amount) for this reason */
    boolean creditPoints(String userId, String orderId, String reason, long points, Instant now) {
        return sql.update("""
                INSERT INTO loyalty_ledger (user_id, order_id, reason, points, created_at) VALUES (?, ?, ?, ?, ?)
                ON CONFLICT (order_id, reason) DO NOTHING""", userId, orderId, reason, points, now) == 1;
    }

    /**
     * Revokes the order's license, keeping the row with the time it was revoked.
     *
     * @return whether this call revoked it (false when it was revoked before, or the order has none)
     */
    boolean revokeLicense(String orderId, Instant now) {
        return sql.update("UPDATE licenses SET revoked_at = ? WHERE order_id = ? AND revoked_at IS NULL", now,
                orderId) == 1;
    }

    /** Whether the order has a license, revoked or not. */
    boolean hasLicense(String orderId) {
        return !sql.list("SELECT 1 FROM licenses WHERE order_id = ?", row -> row.getInt(1), orderId).isEmpty();
    }

    /** The effects the order has produced so far (none for an unknown order); a revoked license is not listed. */
    @Transactional
    public FulfilmentView viewOf(String orderId) {
        return new FulfilmentView(
                sql.list("SELECT license_id FROM licenses WHERE order_id = ? AND revoked_at IS NULL ORDER BY license_id",
                        row -> new FulfilmentView.LicenseRef(row.getString(1)), orderId),
                sql.list("SELECT count(*) FROM notifications WHERE order_id = ?", row -> row.getLong(1), orderId).get(0),
                sql.list("SELECT coalesce(sum(points), 0) FROM loyalty_ledger WHERE order_id = ?", row -> row.getLong(1),
                        orderId).get(0));
    }
}
