package dev.onceguard.sandbox;

import io.agroal.api.AgroalDataSource;
import io.restassured.response.Response;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import static io.restassured.RestAssured.given;

/** The sandbox API as the service (or anyone) calls it, and what it leaves in its tables, for tests. */
final class SandboxCalls {

    private SandboxCalls() {
    }

    static String newOrderId() {
        return "ord_test_" + UUID.randomUUID();
    }

    static String body(String token, String orderId) {
        return "{\"amount\":\"1500.00\",\"currency\":\"RUB\",\"paymentMethodToken\":\"" + token + "\","
                + "\"metadata\":{\"order_id\":\"" + orderId + "\",\"payment_id\":\"pay_test\"}}";
    }

    static Response create(String key, String body) {
        var request = given().contentType("application/json").body(body);
        if (key != null) {
            request.header("Idempotency-Key", key);
        }
        return request.post("/sandbox/v1/payments");
    }

    static Response create(String token, String orderId, String key) {
        return create(key, body(token, orderId));
    }

    /** The scheduled deliveries of one sandbox payment, in due order, with their delay after the payment's creation. */
    static List<Map<String, Object>> deliveriesOf(AgroalDataSource db, String paymentId) {
        return rows(db, """
                SELECT d.event_id, d.copy, d.event_type, d.body, d.status,
                       CAST(EXTRACT(EPOCH FROM (d.due_at - p.created_at)) * 1000 AS bigint) AS delay_ms
                  FROM sandbox_webhook_deliveries d JOIN sandbox_payments p ON p.id = d.payment_id
                 WHERE d.payment_id = ?
                 ORDER BY d.due_at, d.event_id, d.copy""", paymentId);
    }

    static List<Map<String, Object>> rows(AgroalDataSource db, String sql, Object... parameters) {
        try (Connection connection = db.getConnection(); PreparedStatement statement = connection.prepareStatement(sql)) {
            for (int i = 0; i < parameters.length; i++) {
                statement.setObject(i + 1, parameters[i]);
            }
            List<Map<String, Object>> rows = new ArrayList<>();
            try (ResultSet result = statement.executeQuery()) {
                while (result.next()) {
                    Map<String, Object> row = new LinkedHashMap<>();
                    for (int c = 1; c <= result.getMetaData().getColumnCount(); c++) {
                        row.put(result.getMetaData().getColumnLabel(c), result.getObject(c));
                    }
                    rows.add(row);
                }
            }
            return rows;
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }
}
