package dev.onceguard.console;

/** Who took an admin action and the reason they gave, as its audit entry keeps them. */
public record AdminAct(String actor, String reason) {

    /** The act named by an audit entry's columns; null when there is no entry (the change had another cause). */
    static AdminAct of(String actor, String reason) {
        return actor == null ? null : new AdminAct(actor, reason);
    }

    /** "by ada, reason: duplicate charge"; entries older than the required reason have none. */
    public String text() {
        return "by " + actor + (reason == null ? "" : ", reason: " + reason);
    }
}
