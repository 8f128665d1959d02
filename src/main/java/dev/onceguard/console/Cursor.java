package dev.onceguard.console;

import java.time.DateTimeException;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A keyset position in a list ordered by (time, id): the last row of the page shown, written as
 * {@code ?after=<epoch microseconds>-<id>} (microseconds, as PostgreSQL keeps times, so the position is exact). The
 * next page continues strictly after it in the list's order, so pages neither overlap nor skip rows however many are
 * added. The id is a row's number in most lists and a payment's id in the payments list.
 */
record Cursor(Instant at, String id) {

    /** Microseconds, then a row's number or a prefixed id such as {@code pay_…}. */
    private static final Pattern FORMAT = Pattern.compile("(-?\\d{1,19})-(\\d{1,19}|[a-z]{1,8}_[A-Za-z0-9_]{1,56})");

    Cursor(Instant at, long id) {
        this(at, Long.toString(id));
    }

    /** The position written in {@code text}; empty when there is none; a 400 page when it is not one this console wrote. */
    static Optional<Cursor> parse(String text) {
        if (text == null || text.isBlank()) {
            return Optional.empty();
        }
        Matcher matcher = FORMAT.matcher(text.strip());
        if (!matcher.matches()) {
            throw notWritten();
        }
        try {
            Instant at = Instant.EPOCH.plus(Long.parseLong(matcher.group(1)), ChronoUnit.MICROS);
            return Optional.of(new Cursor(at, matcher.group(2)));
        } catch (ArithmeticException | NumberFormatException | DateTimeException e) {
            throw outOfRange();
        }
    }

    /** The id of a list whose rows are numbered; a 400 page when the position was written by another list. */
    long number() {
        if (!id.matches("\\d{1,19}")) {
            throw notWritten();
        }
        try {
            return Long.parseLong(id);
        } catch (NumberFormatException e) {
            throw outOfRange();
        }
    }

    String token() {
        return ChronoUnit.MICROS.between(Instant.EPOCH, at) + "-" + id;
    }

    private static ConsoleRequestRejected notWritten() {
        return ConsoleRequestRejected.badRequest("The page position “after” is not one this console wrote. "
                + "Start again from the first page.");
    }

    private static ConsoleRequestRejected outOfRange() {
        return ConsoleRequestRejected.badRequest("The page position “after” is out of range. "
                + "Start again from the first page.");
    }
}
