package dev.onceguard.sandbox;

import dev.onceguard.platform.Problem;
import dev.onceguard.platform.ProblemException;
import dev.onceguard.platform.SqlRows;
import jakarta.enterprise.context.ApplicationScoped;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.Optional;

@ApplicationScoped
public class SandboxPaymentRows {

    private static final String COLUMNS = "SELECT id, idempotency_key, request_fingerprint, status, amount, currency,"
            + " payment_method_token, order_id, metadata::text AS metadata, created_at, updated_at FROM sandbox_payments";

    private final SqlRows sql;
    private final SandboxJson json;

    public SandboxPaymentRows(SqlRows sql, SandboxJson json) {
        this.sql = sql;
        this.json = json;
    }

    /** The payment {@code id}; a 404 problem when the sandbox has none. */
    SandboxPayment require(String id) {
        return byId(id).orElseThrow(() -> new ProblemException(Problem.of(404, "SANDBOX_PAYMENT_NOT_FOUND",
                "Sandbox payment not found", "The sandbox has no payment with this id.")));
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
                row.getString("order_id"), json.metadata(row.getString("metadata")), SqlRows.instant(row, "created_at"),
                SqlRows.instant(row, "updated_at"));
    }
}
