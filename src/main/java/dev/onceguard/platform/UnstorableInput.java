package dev.onceguard.platform;

import java.util.List;

/**
 * A path, query or header value that PostgreSQL could not store or that is longer than any value the service keeps:
 * refused before a resource sees it. A path id like that names nothing (404); a query or header value is a 400
 * naming it.
 */
public final class UnstorableInput extends RuntimeException {

    public enum Source { PATH, QUERY, HEADER }

    private final Source source;
    private final String name;
    private final String reason;

    UnstorableInput(Source source, String name, String reason) {
        super(source + " " + name + " " + reason, null, false, false);
        this.source = source;
        this.name = name;
        this.reason = reason;
    }

    public Source source() {
        return source;
    }

    public String name() {
        return name;
    }

    public String reason() {
        return reason;
    }

    public Problem problem() {
        if (source == Source.PATH) {
            return Problem.of(404, "NOT_FOUND", "Not found", "No such resource.");
        }
        String what = source == Source.QUERY ? "query parameter" : "header";
        return Problem.validation("The " + what + " " + name + " " + reason + ".",
                List.of(new Problem.FieldError(name, reason)));
    }
}
