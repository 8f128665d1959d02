package dev.onceguard.webhook;

import io.agroal.api.AgroalDataSource;
import jakarta.enterprise.context.ApplicationScoped;
import org.jboss.logging.Logger;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;

/**
 * One row per authentic delivery of an inbox event ({@code webhook_deliveries}): when it came and what it was
 * answered, for the console's event page. Written after the delivery's own transaction; a failure to write it is
 * logged and never changes the provider's answer.
 */
@ApplicationScoped
public class WebhookDeliveryLog {

    private static final Logger LOG = Logger.getLogger(WebhookDeliveryLog.class);

    private final AgroalDataSource dataSource;

    public WebhookDeliveryLog(AgroalDataSource dataSource) {
        this.dataSource = dataSource;
    }

    void record(String provider, String eventId, DeliveryOutcome outcome, int httpStatus) {
        try (Connection connection = dataSource.getConnection();
             PreparedStatement insert = connection.prepareStatement("""
                     INSERT INTO webhook_deliveries (inbox_id, delivered_at, outcome, http_status)
                     SELECT id, now(), ?, ? FROM webhook_inbox WHERE provider = ? AND event_id = ?""")) {
            insert.setString(1, outcome.label());
            insert.setInt(2, httpStatus);
            insert.setString(3, provider);
            insert.setString(4, eventId);
            insert.executeUpdate();
        } catch (SQLException e) {
            LOG.warnf("webhook %s: delivery of event %s not logged (SQLState %s)", provider, eventId, e.getSQLState());
        }
    }
}
