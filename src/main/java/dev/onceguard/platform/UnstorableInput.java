package dev.onceguard.platform;

import java.util.List;

/**
 * A path or query value that PostgreSQL could not store or that is longer than any value the service keeps: refused
 * before a resource sees it. A path id like that names nothing (404); a query value is a 400 naming it.
 */
public final class UnstorableInput extends RuntimeException {

    public enum Source { PATH, QUERY }

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
        return Problem.validation("The query parameter " + name + " " + reason + ".",
                List.of(new Problem.FieldError(name, reason)));
    }
}
