package dev.onceguard.console;

import io.quarkus.qute.TemplateExtension;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;

/** How the console writes times: in UTC, with the age beside them ({@code {t.utc}}, {@code {t.age}}). */
@TemplateExtension
public final class ConsoleFormat {

    private static final DateTimeFormatter UTC = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss 'UTC'")
            .withZone(ZoneOffset.UTC);

    private ConsoleFormat() {
    }

    static String utc(Instant time) {
        return time == null ? "" : UTC.format(time);
    }

    /** ISO-8601, for {@code <time datetime>}. */
    static String iso(Instant time) {
        return time == null ? "" : time.toString();
    }

    static String age(Instant time) {
        return time == null ? "" : age(Duration.between(time, Instant.now()));
    }

    static String age(Duration elapsed) {
        boolean future = elapsed.isNegative();
        long seconds = Math.abs(elapsed.toSeconds());
        String amount;
        if (seconds < 60) {
            amount = seconds + " s";
        } else if (seconds < 3600) {
            amount = seconds / 60 + " min";
        } else if (seconds < 86_400) {
            amount = seconds / 3600 + " h " + seconds % 3600 / 60 + " min";
        } else {
            amount = seconds / 86_400 + " d " + seconds % 86_400 / 3600 + " h";
        }
        return future ? "in " + amount : amount + " ago";
    }
}
