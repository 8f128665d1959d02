package dev.onceguard.console;

import dev.onceguard.idempotency.IdempotencyRecordQueries;
import jakarta.enterprise.context.ApplicationScoped;

import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;

import static dev.onceguard.console.ConsoleReads.instant;
import static dev.onceguard.console.ConsoleReads.nullableInt;

/**
 * {@code /console/requests}: the request log of every record, newest first, by outcome and time, the list behind
 * each of the overview's request counts. Read through the log's (outcome, received_at, id) or (received_at, id)
 * index; each row's record is read by its primary key.
 */
@ApplicationScoped
public class RequestLogList {

    static final int PAGE_SIZE = 50;
    static final Set<String> OUTCOMES = Set.of("EXECUTED", "REPLAYED", "CONFLICT", "IN_PROGRESS", "REFUSED");

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
            String wanted = outcome == null || outcome.isBlank() ? null : outcome.strip();
            if (wanted != null && !OUTCOMES.contains(wanted)) {
                throw ConsoleRequestRejected.badRequest("The outcome must be one of " + String.join(", ",
                        OUTCOMES.stream().sorted().toList()) + ".");
            }
            return new Filter(wanted, blank(from), time("from", from), blank(to), time("to", to));
        }

        private static String blank(String text) {
            return text == null || text.isBlank() ? null : text.strip();
        }

        private static Instant time(String name, String text) {
            if (blank(text) == null) {
                return null;
            }
            try {
                return OperationFilter.parseTime(text.strip());
            } catch (java.time.format.DateTimeParseException e) {
                throw ConsoleRequestRejected.badRequest("The " + name + " time is not one: write it as "
                        + "2026-11-30T05:41 (UTC) or as an ISO-8601 instant.");
            }
        }

        public boolean isOutcome(String value) {
            return value.equals(outcome);
        }

        public List<String> outcomes() {
            return List.of("EXECUTED", "REPLAYED", "CONFLICT", "IN_PROGRESS", "REFUSED");
        }

        String[] query() {
            return new String[] {"outcome", outcome, "from", fromText, "to", toText};
        }
    }

    private final IdempotencyRecordQueries records;

    public RequestLogList(IdempotencyRecordQueries records) {
        this.records = records;
    }

    KeysetPage<Row> page(Filter filter, Optional<Cursor> after) {
        List<Row> rows = records.requestLog(filter.outcome(), filter.from(), filter.to(),
                after.map(Cursor::at).orElse(null), after.map(Cursor::number).orElse(null), PAGE_SIZE,
                row -> new Row(row.getLong("id"), row.getLong("record_id"), row.getString("request_id"),
                        row.getString("client_request_id"), instant(row, "received_at"), row.getString("outcome"), nullableInt(row, "http_status"),
                        row.getString("idempotency_key"), row.getString("user_id"), row.getString("operation")));
        return KeysetPage.of(rows, PAGE_SIZE, row -> new Cursor(row.receivedAt(), row.id()));
    }
}
