package dev.onceguard.console;

/**
 * Why an admin acted, as the operator typed it: every admin action needs one, kept in its audit entry. An action
 * without a reason, or with one the audit log cannot keep whole, is refused before it does anything.
 */
final class AdminReason {

    static final int MAX_LENGTH = 500;

    private AdminReason() {
    }

    /**
     * The reason, trimmed; a 400 page that says what is wrong when it is missing, longer than the audit log keeps, or
     * holds a character PostgreSQL cannot store.
     */
    static String require(String typed) {
        String reason = typed == null ? "" : typed.strip();
        if (reason.isEmpty()) {
            throw ConsoleRequestRejected.badRequest("Every admin action needs a reason: say why you are taking it. "
                    + "Nothing was done.");
        }
        if (reason.indexOf('\u0000') >= 0) {
            throw ConsoleRequestRejected.badRequest("A reason cannot contain a NUL character, which the audit log cannot "
                    + "store. Nothing was done.");
        }
        if (reason.codePointCount(0, reason.length()) > MAX_LENGTH) {
            throw ConsoleRequestRejected.badRequest("A reason is at most " + MAX_LENGTH + " characters; this one has "
                    + reason.codePointCount(0, reason.length()) + ". Nothing was done.");
        }
        return reason;
    }
}
