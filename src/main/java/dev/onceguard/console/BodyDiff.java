package dev.onceguard.console;

import com.fasterxml.jackson.databind.JsonNode;

import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * What a refused request changed compared with the first one under the same key, field by field: both bodies are
 * flattened to their leaves ({@code items[0].quantity}, {@code currency}) and every leaf that differs, was added or
 * was left out is one {@link Change}, in the order the fields first appear.
 */
public final class BodyDiff {

    /** One field; {@code original} or {@code refused} is null when the field is absent from that body. */
    public record Change(String field, String original, String refused) {

        public String what() {
            if (original == null) {
                return "added";
            }
            return refused == null ? "left out" : "changed";
        }
    }

    private BodyDiff() {
    }

    /** The changes; empty when either body was not kept (requests from before bodies were stored). */
    public static List<Change> between(JsonNode original, JsonNode refused) {
        if (original == null || refused == null) {
            return List.of();
        }
        Map<String, String> before = leaves(original);
        Map<String, String> after = leaves(refused);
        Set<String> fields = new LinkedHashSet<>(before.keySet());
        fields.addAll(after.keySet());
        return fields.stream().filter(field -> !Objects.equals(before.get(field), after.get(field)))
                .map(field -> new Change(field, before.get(field), after.get(field))).toList();
    }

    private static Map<String, String> leaves(JsonNode body) {
        Map<String, String> leaves = new LinkedHashMap<>();
        collect("", body, leaves);
        return leaves;
    }

    private static void collect(String path, JsonNode node, Map<String, String> leaves) {
        if (node.isObject() && !node.isEmpty()) {
            for (Iterator<Map.Entry<String, JsonNode>> fields = node.fields(); fields.hasNext(); ) {
                Map.Entry<String, JsonNode> field = fields.next();
                collect(path.isEmpty() ? field.getKey() : path + "." + field.getKey(), field.getValue(), leaves);
            }
        } else if (node.isArray() && !node.isEmpty()) {
            for (int i = 0; i < node.size(); i++) {
                collect(path + "[" + i + "]", node.get(i), leaves);
            }
        } else {
            leaves.put(path.isEmpty() ? "(body)" : path, node.toString());
        }
    }
}
