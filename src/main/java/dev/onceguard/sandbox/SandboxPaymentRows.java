package dev.onceguard.sandbox;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.onceguard.platform.SqlRows;
import jakarta.enterprise.context.ApplicationScoped;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** Reads sandbox payments. */
@ApplicationScoped
public class SandboxPaymentRows {

    private static final String COLUMNS = "SELECT id, idempotency_key, request_fingerprint, status, amount, currency,"
            + " payment_method_token, order_id, metadata::text AS metadata, created_at, updated_at FROM sandbox_payments";
    private static final TypeReference<Map<String, String>> METADATA = new TypeReference<>() {
    };

    private final SqlRows sql;
    private final ObjectMapper json;

    public SandboxPaymentRows(SqlRows sql, ObjectMapper json) {
        this.sql = sql;
        this.json = json;
    }

    public Optional<SandboxPayment> byId(String id) {
        return sql.list(COLUMNS + " WHERE id = ?", this::payment, id).stream().findFirst();
    }

    Optional<SandboxPayment> byKey(String idempotencyKey) {
        return sql.list(COLUMNS + " WHERE idempotency_key = ?", this::payment, idempotencyKey).stream().findFirst();
    }

    List<SandboxPayment> ofOrder(String orderId, int limit) {
        return sql.list(COLUMNS + " WHERE order_id = ? ORDER BY created_at, id LIMIT ?", this::payment, orderId, limit);
    }

    private SandboxPayment payment(ResultSet row) throws SQLException {
        return new SandboxPayment(row.getString("id"), row.getString("idempotency_key"),
                row.getString("request_fingerprint"), SandboxPayment.Status.valueOf(row.getString("status")),
                row.getBigDecimal("amount"), row.getString("currency"), row.getString("payment_method_token"),
                row.getString("order_id"), metadata(row.getString("metadata")), SqlRows.instant(row, "created_at"),
                SqlRows.instant(row, "updated_at"));
    }

    private Map<String, String> metadata(String text) {
        try {
            return json.readValue(text, METADATA);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("sandbox payment metadata is not a JSON object of strings", e);
        }
    }
}
