package dev.onceguard.console;

import dev.onceguard.idempotency.IdempotencyRecord;
import dev.onceguard.checkout.OrderService;
import dev.onceguard.payment.PaymentService;

import java.time.Instant;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The filters of {@code /console/operations} as typed in the form, checked: each field is either absent, a valid
 * value, or named in {@link #problems()} with what would be accepted. A filter with problems is never queried. The
 * page position {@code after} is not typed but written by the console: one it did not write is a 400 page of its own
 * ({@link Cursor#parse}).
 */
public record OperationFilter(String key, String user, String order, String status, String operation,
                              String fromText, String toText, Instant from, Instant to, Cursor after,
                              List<String> problems) {

    public static final String PATH = "/console/operations";
    private static final List<String> STATUSES = Arrays.stream(IdempotencyRecord.Status.values()).map(Enum::name).toList();
    /** The operations whose records the console lists, by the names their records carry. */
    private static final List<String> OPERATIONS = List.of(OrderService.OPERATION, PaymentService.OPERATION);
    /** A time as the filters' datetime-local inputs write it: minute precision, UTC. */
    static final DateTimeFormatter FILTER_TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm")
            .withZone(ZoneOffset.UTC);
    private static final String TIME_HELP = "write it as 2026-11-30T05:41 (UTC) or as an ISO-8601 instant such as "
            + "2026-11-30T05:41:00Z";

    public static OperationFilter parse(String key, String user, String order, String status, String operation,
                                        String from, String to, String after) {
        List<String> problems = new ArrayList<>();
        String statusValue = blankToNull(status);
        if (statusValue != null && !STATUSES.contains(statusValue)) {
            problems.add("Status \"" + statusValue + "\" is not one of " + String.join(", ", STATUSES) + ".");
            statusValue = null;
        }
        String operationValue = blankToNull(operation);
        if (operationValue != null && !OPERATIONS.contains(operationValue)) {
            problems.add("Operation \"" + operationValue + "\" is not one of " + String.join(", ", OPERATIONS) + ".");
            operationValue = null;
        }
        Instant fromTime = time("From", blankToNull(from), problems);
        Instant toTime = time("To", blankToNull(to), problems);
        if (fromTime != null && toTime != null && !fromTime.isBefore(toTime)) {
            problems.add("From must be before To.");
        }
        return new OperationFilter(blankToNull(key), blankToNull(user), blankToNull(order), statusValue, operationValue,
                blankToNull(from), blankToNull(to), fromTime, toTime, Cursor.parse(after).orElse(null), List.copyOf(problems));
    }

    OperationFilter at(Cursor position) {
        return new OperationFilter(key, user, order, status, operation, fromText, toText, from, to, position, problems);
    }

    public boolean valid() {
        return problems.isEmpty();
    }

    public boolean narrowed() {
        return key != null || user != null || order != null || status != null || operation != null
                || from != null || to != null;
    }

    public List<String> statuses() {
        return STATUSES;
    }

    public List<String> operations() {
        return OPERATIONS;
    }

    /** The links under this filter's list, the filters kept; {@code next} is the position of the next page, if any. */
    public Pager pager(Cursor next) {
        return Pager.of(PATH, after != null, next, "key", key, "user", user, "order", order, "status", status,
                "operation", operation, "from", fromText, "to", toText);
    }

    /** A filter time as {@link #parseTime} reads it; a 400 page naming the filter when it is not one. */
    static Instant filterTime(String name, String text) {
        try {
            return parseTime(text.strip());
        } catch (DateTimeParseException e) {
            throw ConsoleRequestRejected.badRequest("The " + name + " time is not one: write it as 2026-11-30T05:41 "
                    + "(UTC) or as an ISO-8601 instant.");
        }
    }

    /** {@code 2026-11-30T05:41} (UTC, as a datetime-local input sends it, seconds optional) or an ISO-8601 instant. */
    static Instant parseTime(String text) {
        try {
            return OffsetDateTime.parse(text).toInstant();
        } catch (DateTimeParseException notOffset) {
            return LocalDateTime.parse(text).toInstant(ZoneOffset.UTC);
        }
    }

    private static Instant time(String label, String text, List<String> problems) {
        if (text == null) {
            return null;
        }
        try {
            return parseTime(text);
        } catch (DateTimeParseException e) {
            problems.add(label + " \"" + text + "\" is not a time: " + TIME_HELP + ".");
            return null;
        }
    }

    static String blankToNull(String value) {
        return value == null || value.isBlank() ? null : value.strip();
    }
}
