package dev.onceguard.console;

/** A console request that cannot be answered: a malformed filter (400) or an object that does not exist (404). */
final class ConsoleRequestRejected extends RuntimeException {

    private final int status;
    private final String heading;

    private ConsoleRequestRejected(int status, String heading, String message) {
        super(message, null, false, false);
        this.status = status;
        this.heading = heading;
    }

    static ConsoleRequestRejected badRequest(String message) {
        return new ConsoleRequestRejected(400, "Bad request", message);
    }

    static ConsoleRequestRejected notFound(String message) {
        return new ConsoleRequestRejected(404, "Not found", message);
    }

    /** A path id: a positive number, or a 404 that says so. */
    static long id(String text, String what) {
        if (text != null && text.matches("[1-9]\\d{0,17}")) {
            return Long.parseLong(text);
        }
        throw notFound("There is no " + what + " with that id: ids are positive numbers.");
    }

    int status() {
        return status;
    }

    String heading() {
        return heading;
    }
}
