package dev.onceguard.platform;

import com.fasterxml.jackson.databind.JsonNode;

import java.util.Iterator;
import java.util.Map;
import java.util.Optional;
import java.util.stream.IntStream;

/**
 * What PostgreSQL cannot store in a text or jsonb column: a NUL character (U+0000) or a UTF-16 surrogate without its
 * pair (jsonb also refuses the escaped forms {@code \u0000} and a lone {@code \ud800}). Every value that comes from a
 * request is checked here at the boundary, so that such input is a 400 or a 404 instead of a failed statement.
 */
public final class StorableText {

    private StorableText() {
    }

    /** Why {@code value} cannot be stored, or empty when it can. */
    public static Optional<String> refusal(String value) {
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c == '\u0000') {
                return Optional.of("must not contain a NUL character");
            }
            if (Character.isHighSurrogate(c) && i + 1 < value.length() && Character.isLowSurrogate(value.charAt(i + 1))) {
                i++;
            } else if (Character.isSurrogate(c)) {
                return Optional.of("must not contain an unpaired UTF-16 surrogate");
            }
        }
        return Optional.empty();
    }

    public static boolean storable(String value) {
        return refusal(value).isEmpty();
    }

    /** The first string (value or field name) in {@code tree} that cannot be stored, named by its JSON path. */
    public static Optional<Problem.FieldError> firstRefusal(JsonNode tree) {
        return firstRefusal(tree, "");
    }

    private static Optional<Problem.FieldError> firstRefusal(JsonNode node, String path) {
        if (node.isTextual()) {
            return refusal(node.textValue()).map(reason -> new Problem.FieldError(path, reason));
        }
        if (node.isArray()) {
            return IntStream.range(0, node.size()).mapToObj(i -> firstRefusal(node.get(i), path + "[" + i + "]"))
                    .flatMap(Optional::stream).findFirst();
        }
        if (node.isObject()) {
            for (Iterator<Map.Entry<String, JsonNode>> fields = node.fields(); fields.hasNext(); ) {
                Map.Entry<String, JsonNode> field = fields.next();
                Optional<String> badName = refusal(field.getKey());
                if (badName.isPresent()) {
                    return Optional.of(new Problem.FieldError(path, "a field name " + badName.get()));
                }
                Optional<Problem.FieldError> found = firstRefusal(field.getValue(),
                        path.isEmpty() ? field.getKey() : path + "." + field.getKey());
                if (found.isPresent()) {
                    return found;
                }
            }
        }
        return Optional.empty();
    }
}
