package dev.onceguard.webhook;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;

import java.util.Iterator;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Values a provider event carries under a secret-looking name (Stripe's PaymentIntent {@code client_secret}, any
 * {@code *token*}, {@code *password*}, {@code *api_key*}, {@code *signature*}): none of them is needed to apply the
 * event, so none of them is kept.
 */
public final class SecretFields {

    public static final String HIDDEN = "[not shown]";
    private static final Pattern SECRET_NAME = Pattern.compile(".*(secret|token|password|api_?key|signature).*");
    /** What a JSON text must contain for one of its names to match {@link #SECRET_NAME}: a word, or an escape. */
    private static final Pattern SECRET_NAME_POSSIBLE = Pattern.compile(
            "secret|token|password|api_?key|signature|\\\\u", Pattern.CASE_INSENSITIVE | Pattern.UNICODE_CASE);

    private SecretFields() {
    }

    /**
     * Whether a name in this JSON text may be secret-looking; when not, {@link #hide} would change nothing and the
     * text need not be read. A name spelled with escaped characters counts as possibly secret.
     */
    public static boolean mayNameOne(String json) {
        return SECRET_NAME_POSSIBLE.matcher(json).find();
    }

    /** Replaces, in place, every non-null value under a secret-looking name; whether it replaced any. */
    public static boolean hide(JsonNode node) {
        boolean hidden = false;
        if (node instanceof ObjectNode object) {
            for (Iterator<Map.Entry<String, JsonNode>> fields = object.fields(); fields.hasNext(); ) {
                Map.Entry<String, JsonNode> field = fields.next();
                if (SECRET_NAME.matcher(field.getKey().toLowerCase(Locale.ROOT)).matches() && !field.getValue().isNull()) {
                    hidden |= !field.getValue().equals(TextNode.valueOf(HIDDEN));
                    field.setValue(TextNode.valueOf(HIDDEN));
                } else {
                    hidden |= hide(field.getValue());
                }
            }
        } else if (node instanceof ArrayNode array) {
            for (JsonNode element : array) {
                hidden |= hide(element);
            }
        }
        return hidden;
    }
}
