package dev.onceguard.platform;

import java.time.Instant;
import java.time.temporal.ChronoUnit;

/** RFC 3339 UTC with milliseconds, the contract's one timestamp format. */
public final class Timestamps {

    private Timestamps() {
    }

    /** Now, truncated to what the database stores and the API shows. */
    public static Instant now() {
        return Instant.now().truncatedTo(ChronoUnit.MILLIS);
    }

    /**
     * {@code 2026-12-03T08:04:05.120Z}: always three digits of milliseconds, finer digits dropped. Built on
     * {@link Instant#toString()}, which writes the fraction in groups of three digits and none when it is zero: every
     * new order formats one, and a pattern formatter with a zone builds a zoned date-time for each.
     */
    public static String format(Instant instant) {
        if (instant == null) {
            return null;
        }
        String iso = instant.truncatedTo(ChronoUnit.MILLIS).toString();
        int seconds = iso.length() - 1;
        return iso.charAt(seconds - 3) == ':' ? iso.substring(0, seconds) + ".000Z" : iso;
    }
}
