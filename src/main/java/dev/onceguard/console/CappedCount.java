package dev.onceguard.console;

/** A count read only up to a limit, so a large backlog costs no more to count than the limit; shown as "1000+". */
public record CappedCount(long shown, boolean capped) {

    static CappedCount of(long counted, int limit) {
        return new CappedCount(Math.min(counted, limit), counted > limit);
    }
}
