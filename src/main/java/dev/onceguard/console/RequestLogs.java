package dev.onceguard.console;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.onceguard.idempotency.IdempotencyRecordQueries;
import jakarta.enterprise.context.ApplicationScoped;
import org.eclipse.microprofile.config.inject.ConfigProperty;

import java.io.IOException;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;

import static dev.onceguard.console.ConsoleReads.nullableInt;
import static dev.onceguard.platform.SqlRows.instant;

/**
 * Reads one record's {@link RequestHistory}: its request log ({@code idempotency_request_log}, bounded per record by
 * the writer) and its key-reuse conflicts compared with the first request's body.
 */
@ApplicationScoped
public class RequestLogs {

    private final ConsoleReads reads;
    private final IdempotencyRecordQueries records;
    private final ObjectMapper json;
    private final int kept;

    public RequestLogs(ConsoleReads reads, IdempotencyRecordQueries records, ObjectMapper json,
                       @ConfigProperty(name = "onceguard.idempotency.request-log.kept-per-end") int kept) {
        this.reads = reads;
        this.records = records;
        this.json = json;
        this.kept = kept;
    }

    public RequestHistory of(long recordId) {
        List<RequestHistory.Conflict> conflicts = records.conflictsOf(recordId,
                row -> {
                    JsonNode original = body(row, "request_body");
                    JsonNode refused = body(row, "refused_body");
                    return new RequestHistory.Conflict(instant(row, "created_at"), row.getString("request_id"),
                            row.getString("client_request_id"),
                            row.getString("original_fingerprint"), row.getString("conflicting_fingerprint"),
                            original != null && refused != null, BodyDiff.between(original, refused));
                });
        return new RequestHistory(requests(recordId), kept, conflicts);
    }

    List<RequestHistory.Request> requests(long recordId) {
        return reads.list("""
                        SELECT request_id, client_request_id, received_at, outcome, http_status
                          FROM idempotency_request_log WHERE record_id = ? ORDER BY received_at, id""",
                row -> new RequestHistory.Request(row.getString("request_id"), row.getString("client_request_id"),
                        instant(row, "received_at"), row.getString("outcome"), nullableInt(row, "http_status")),
                recordId);
    }

    JsonNode body(ResultSet row, String column) throws SQLException {
        return parsed(row.getString(column));
    }

    /** A kept body as JSON; null when none was kept or it is not JSON. */
    JsonNode parsed(String text) {
        if (text == null) {
            return null;
        }
        try {
            return json.readTree(text);
        } catch (IOException e) {
            return null;
        }
    }
}
