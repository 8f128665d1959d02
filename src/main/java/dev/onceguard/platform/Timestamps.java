package dev.onceguard.platform;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;

/** RFC 3339 UTC with milliseconds, the contract's one timestamp format. */
public final class Timestamps {

    private static final DateTimeFormatter RFC_3339_MILLIS =
            DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSS'Z'").withZone(ZoneOffset.UTC);

    private Timestamps() {
    }

    /** Now, truncated to what the database stores and the API shows. */
    public static Instant now() {
        return Instant.now().truncatedTo(ChronoUnit.MILLIS);
    }

    public static String format(Instant instant) {
        return instant == null ? null : RFC_3339_MILLIS.format(instant);
    }
}
