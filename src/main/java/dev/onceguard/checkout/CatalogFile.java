package dev.onceguard.checkout;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * A catalog as JSON, in the shape GET /api/products answers: an array of
 * {@code {"productId","name","kind","price","currency","available"}}, every one of these fields present,
 * {@code available} the units in stock or null for unlimited; an entry may add {@code maxQuantityPerOrder}, the units
 * of the product one order may hold (absent or null: onceguard.checkout.max-quantity-per-product). Read whole and
 * checked whole before anything is written.
 */
final class CatalogFile {

    /** One product of the file, checked. */
    record Entry(String productId, String name, Product.Kind kind, BigDecimal price, String currency, Integer stock,
                 Integer maxQuantityPerOrder) {
    }

    private static final Set<String> FIELDS = Set.of("productId", "name", "kind", "price", "currency", "available");
    private static final String MAX_QUANTITY = "maxQuantityPerOrder";
    private static final Pattern PRICE = Pattern.compile("\\d{1,10}(\\.\\d{1,2})?");
    private static final Pattern CURRENCY = Pattern.compile("[A-Z]{3}");
    private static final int MAX_ID_LENGTH = 100;
    private static final int MAX_NAME_LENGTH = 300;

    private CatalogFile() {
    }

    /** The products of {@code content}; {@code source} names the file in every error. */
    static List<Entry> parse(String source, byte[] content, ObjectMapper json) {
        JsonNode root;
        try {
            root = json.readTree(content);
        } catch (JsonProcessingException e) {
            throw new CatalogFileInvalid("Catalog file " + source + " is not JSON: " + e.getOriginalMessage()
                    + " (" + e.getLocation() + ")", e);
        } catch (IOException e) {
            throw new CatalogFileInvalid("Catalog file " + source + " cannot be read: " + e.getMessage(), e);
        }
        if (root == null || !root.isArray()) {
            throw new CatalogFileInvalid("Catalog file " + source + " must be a JSON array of products");
        }
        List<Entry> entries = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        for (int i = 0; i < root.size(); i++) {
            Entry entry = entry(root.get(i), new Where(source, i + 1, root.get(i)));
            if (!seen.add(entry.productId())) {
                throw new Where(source, i + 1, root.get(i)).invalid("appears more than once in the file");
            }
            entries.add(entry);
        }
        return List.copyOf(entries);
    }

    private static Entry entry(JsonNode node, Where where) {
        if (!node.isObject()) {
            throw where.invalid("must be a JSON object");
        }
        for (Iterator<String> names = node.fieldNames(); names.hasNext(); ) {
            String name = names.next();
            if (!FIELDS.contains(name) && !name.equals(MAX_QUANTITY)) {
                throw where.invalid("has the unknown field \"" + name + "\" (the fields are " + FIELDS + " and, "
                        + "optionally, " + MAX_QUANTITY + ")");
            }
        }
        for (String field : FIELDS) {
            if (!node.has(field)) {
                throw where.invalid("lacks \"" + field + "\"" + (field.equals("available")
                        ? " (units in stock, or null for unlimited)" : ""));
            }
        }
        String productId = text(node, "productId", MAX_ID_LENGTH, where);
        String name = text(node, "name", MAX_NAME_LENGTH, where);
        String kind = text(node, "kind", MAX_NAME_LENGTH, where);
        if (!kind.equals("DIGITAL") && !kind.equals("PHYSICAL")) {
            throw where.invalid("has kind \"" + kind + "\"; it must be DIGITAL or PHYSICAL");
        }
        JsonNode price = node.get("price");
        if (!price.isTextual() || !PRICE.matcher(price.asText()).matches()) {
            throw where.invalid("has price " + price + "; it must be a string such as \"1500.00\" "
                    + "(at most 10 digits before the point and 2 after)");
        }
        String currency = text(node, "currency", 3, where);
        if (!CURRENCY.matcher(currency).matches()) {
            throw where.invalid("has currency \"" + currency + "\"; it must be an ISO 4217 code such as \"RUB\"");
        }
        JsonNode available = node.get("available");
        if (!available.isNull() && !(available.isIntegralNumber() && available.canConvertToInt() && available.asInt() >= 0)) {
            throw where.invalid("has available " + available + "; it must be the units in stock (0 or more) or null "
                    + "for unlimited");
        }
        JsonNode maxQuantity = node.path(MAX_QUANTITY);
        if (!maxQuantity.isMissingNode() && !maxQuantity.isNull()
                && !(maxQuantity.isIntegralNumber() && maxQuantity.canConvertToInt() && maxQuantity.asInt() > 0)) {
            throw where.invalid("has " + MAX_QUANTITY + " " + maxQuantity + "; it must be the units one order may "
                    + "hold (1 or more) or null for onceguard.checkout.max-quantity-per-product");
        }
        return new Entry(productId, name, Product.Kind.valueOf(kind), new BigDecimal(price.asText()).setScale(2),
                currency, available.isNull() ? null : available.asInt(),
                maxQuantity.isIntegralNumber() ? maxQuantity.asInt() : null);
    }

    private static String text(JsonNode node, String field, int maxLength, Where where) {
        JsonNode value = node.get(field);
        if (!value.isTextual() || value.asText().isBlank()) {
            throw where.invalid("has " + field + " " + value + "; it must be a non-empty string");
        }
        String text = value.asText();
        if (text.length() > maxLength || text.chars().anyMatch(Character::isISOControl)) {
            throw where.invalid("has a " + field + " longer than " + maxLength + " characters or with control "
                    + "characters");
        }
        return text;
    }

    /** The place of an entry in its file, named by its productId where it has a usable one. */
    private record Where(String source, int position, JsonNode node) {

        CatalogFileInvalid invalid(String problem) {
            JsonNode id = node.isObject() ? node.get("productId") : null;
            String product = id != null && id.isTextual() && !id.asText().isBlank() && id.asText().length() <= MAX_ID_LENGTH
                    ? "product \"" + id.asText() + "\" (entry " + position + ")"
                    : "entry " + position;
            return new CatalogFileInvalid("Catalog file " + source + ": " + product + " " + problem);
        }
    }
}
