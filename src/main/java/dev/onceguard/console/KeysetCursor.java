package dev.onceguard.console;

import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Optional;

/**
 * Where a newest-first page of idempotency records ends: the (created_at, id) of its last row, written
 * {@code 2026-11-30T05:41:25.123456Z_1234} in the {@code after} query parameter. The next page is every row strictly
 * before it in (created_at DESC, id DESC) order, so pages neither overlap nor skip rows however many are added.
 */
public record KeysetCursor(Instant createdAt, long id) {

    public String value() {
        return createdAt + "_" + id;
    }

    /** The cursor written in {@code text}; empty when it is not one. */
    public static Optional<KeysetCursor> parse(String text) {
        int separator = text.lastIndexOf('_');
        if (separator <= 0) {
            return Optional.empty();
        }
        try {
            return Optional.of(new KeysetCursor(Instant.parse(text.substring(0, separator)),
                    Long.parseLong(text.substring(separator + 1))));
        } catch (DateTimeParseException | NumberFormatException e) {
            return Optional.empty();
        }
    }
}
