package dev.onceguard.idempotency;

import dev.onceguard.platform.Problem;
import dev.onceguard.platform.ProblemException;

import java.util.List;

/**
 * The value of an {@code Idempotency-Key} header: 1 to 255 visible ASCII characters. A structured-field
 * string ({@code "abc"}, RFC 8941 §3.3.3) names the same key as its bare content.
 */
public record IdempotencyKey(String value) {

    public static final String HEADER = "Idempotency-Key";
    public static final int MAX_LENGTH = 255;

    /**
     * The one {@code Idempotency-Key} of a request, from all the values its headers carry: none is null (missing, as
     * {@link #parse} says), two or more are refused as invalid, since keeping the first would silently treat a request
     * that may mean two intents as one of them.
     */
    public static String single(List<String> values) {
        if (values.size() > 1) {
            throw invalid("A request carries one Idempotency-Key header; this one carried " + values.size() + ".");
        }
        return values.isEmpty() ? null : values.get(0);
    }

    public static IdempotencyKey parse(String header) {
        if (header == null) {
            throw new ProblemException(Problem.of(400, "IDEMPOTENCY_KEY_MISSING", "Idempotency-Key missing",
                    "This operation changes state and needs an Idempotency-Key header (a UUID v4 is recommended)."));
        }
        String value = header.strip();
        if (value.length() >= 2 && value.startsWith("\"") && value.endsWith("\"")) {
            value = unquote(value);
        }
        if (value == null || value.isEmpty() || value.length() > MAX_LENGTH
                || !value.chars().allMatch(c -> c >= 0x21 && c <= 0x7e)) {
            throw invalid("An Idempotency-Key is 1 to " + MAX_LENGTH + " visible ASCII characters (0x21-0x7E), bare or as a quoted string.");
        }
        return new IdempotencyKey(value);
    }

    private static ProblemException invalid(String detail) {
        return new ProblemException(Problem.of(400, "IDEMPOTENCY_KEY_INVALID", "Idempotency-Key invalid", detail));
    }

    /** Unescapes a structured-field string; null when the quoting itself is broken. */
    private static String unquote(String quoted) {
        StringBuilder out = new StringBuilder(quoted.length());
        for (int i = 1; i < quoted.length() - 1; i++) {
            char c = quoted.charAt(i);
            if (c == '\\') {
                if (++i >= quoted.length() - 1) {
                    return null;
                }
                c = quoted.charAt(i);
                if (c != '"' && c != '\\') {
                    return null;
                }
            } else if (c == '"') {
                return null;
            }
            out.append(c);
        }
        return out.toString();
    }
}
