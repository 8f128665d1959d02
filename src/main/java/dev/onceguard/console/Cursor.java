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
 * added.
 */
record Cursor(Instant at, long id) {

    private static final Pattern FORMAT = Pattern.compile("(-?\\d{1,19})-(\\d{1,19})");

    /** The position written in {@code text}; empty when there is none; a 400 page when it is not one this console wrote. */
    static Optional<Cursor> parse(String text) {
        if (text == null || text.isBlank()) {
            return Optional.empty();
        }
        Matcher matcher = FORMAT.matcher(text.strip());
        if (!matcher.matches()) {
            throw ConsoleRequestRejected.badRequest("The page position “after” is not one this console wrote. "
                    + "Start again from the first page.");
        }
        try {
            Instant at = Instant.EPOCH.plus(Long.parseLong(matcher.group(1)), ChronoUnit.MICROS);
            return Optional.of(new Cursor(at, Long.parseLong(matcher.group(2))));
        } catch (ArithmeticException | NumberFormatException | DateTimeException e) {
            throw ConsoleRequestRejected.badRequest("The page position “after” is out of range. "
                    + "Start again from the first page.");
        }
    }

    String token() {
        return ChronoUnit.MICROS.between(Instant.EPOCH, at) + "-" + id;
    }
}
