package dev.onceguard.console;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.onceguard.idempotency.IdempotencyRecordQueries;
import jakarta.enterprise.context.ApplicationScoped;
import org.eclipse.microprofile.config.inject.ConfigProperty;

import java.io.IOException;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

import static dev.onceguard.console.ConsoleReads.nullableInt;
import static dev.onceguard.platform.SqlRows.instant;

/**
 * Reads one record's {@link RequestHistory}: its request log ({@code idempotency_request_log}, bounded per record by
 * the writer) and its key-reuse conflicts compared with the first request's body; and, for {@code /console/requests},
 * the request log of every record.
 */
@ApplicationScoped
public class RequestLogs {

    static final List<String> OUTCOMES = List.of("EXECUTED", "REPLAYED", "CONFLICT", "IN_PROGRESS", "REFUSED");
    static final List<CsvExport.Column<Row>> CSV = List.of(
            new CsvExport.Column<>("received_at", Row::receivedAt),
            new CsvExport.Column<>("request_id", Row::requestId),
            new CsvExport.Column<>("client_request_id", Row::clientRequestId),
            new CsvExport.Column<>("outcome", Row::outcome),
            new CsvExport.Column<>("http_status", Row::httpStatus),
            new CsvExport.Column<>("record_id", Row::recordId),
            new CsvExport.Column<>("idempotency_key", Row::key),
            new CsvExport.Column<>("user_id", Row::userId),
            new CsvExport.Column<>("operation", Row::operation));

    public record Row(long id, long recordId, String requestId, String clientRequestId, Instant receivedAt, String outcome, Integer httpStatus,
                      String key, String userId, String operation) {

        public String href() {
            return ConsoleLinks.operation(recordId);
        }

        public String userHref() {
            return userId == null ? null : ConsoleLinks.user(userId);
        }

        public String statusClass() {
            return new RequestHistory.Request(requestId, clientRequestId, receivedAt, outcome, httpStatus).statusClass();
        }
    }

    public record Filter(String outcome, String fromText, Instant from, String toText, Instant to) {

        static Filter of(String outcome, String from, String to) {
            String wanted = OperationFilter.blankToNull(outcome);
            if (wanted != null && !OUTCOMES.contains(wanted)) {
                throw ConsoleRequestRejected.badRequest("The outcome must be one of " + String.join(", ",
                        OUTCOMES.stream().sorted().toList()) + ".");
            }
            String fromText = OperationFilter.blankToNull(from);
            String toText = OperationFilter.blankToNull(to);
            return new Filter(wanted, fromText, fromText == null ? null : OperationFilter.filterTime("from", fromText),
                    toText, toText == null ? null : OperationFilter.filterTime("to", toText));
        }

        public List<String> outcomes() {
            return OUTCOMES;
        }

        String[] query() {
            return new String[] {"outcome", outcome, "from", fromText, "to", toText};
        }
    }

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
                    JsonNode original = parsed(row.getString("request_body"));
                    JsonNode refused = parsed(row.getString("refused_body"));
                    return new RequestHistory.Conflict(instant(row, "created_at"), row.getString("request_id"),
                            row.getString("client_request_id"),
                            row.getString("original_fingerprint"), row.getString("conflicting_fingerprint"),
                            original != null && refused != null, BodyDiff.between(original, refused));
                });
        return new RequestHistory(requests(recordId), kept, conflicts);
    }

    /**
     * The request log of every record, newest first, by outcome and time, the list behind each of the overview's
     * request counts. Read through the log's (outcome, received_at, id) or (received_at, id) index; each row's record
     * is read by its primary key.
     */
    KeysetPage<Row> page(Filter filter, Optional<Cursor> after) {
        List<Row> rows = records.requestLog(filter.outcome(), filter.from(), filter.to(),
                after.map(Cursor::at).orElse(null), after.map(Cursor::number).orElse(null), KeysetPage.SIZE,
                row -> new Row(row.getLong("id"), row.getLong("record_id"), row.getString("request_id"),
                        row.getString("client_request_id"), instant(row, "received_at"), row.getString("outcome"), nullableInt(row, "http_status"),
                        row.getString("idempotency_key"), row.getString("user_id"), row.getString("operation")));
        return KeysetPage.of(rows, KeysetPage.SIZE, row -> new Cursor(row.receivedAt(), row.id()));
    }

    private List<RequestHistory.Request> requests(long recordId) {
        return reads.list("""
                        SELECT request_id, client_request_id, received_at, outcome, http_status
                          FROM idempotency_request_log WHERE record_id = ? ORDER BY received_at, id""",
                row -> new RequestHistory.Request(row.getString("request_id"), row.getString("client_request_id"),
                        instant(row, "received_at"), row.getString("outcome"), nullableInt(row, "http_status")),
                recordId);
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
