package dev.onceguard.platform;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.cfg.CoercionAction;
import com.fasterxml.jackson.databind.cfg.CoercionInputShape;
import com.fasterxml.jackson.databind.type.LogicalType;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.exc.InvalidFormatException;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import com.fasterxml.jackson.databind.json.JsonMapper;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.validation.Validator;

import java.io.IOException;
import java.util.Comparator;
import java.util.List;

/**
 * Reads a JSON request body strictly: malformed JSON, duplicate keys, unknown fields, wrong types
 * (no coercion of "1" to 1, 1.5 to 1, or 7 or true to a string), strings PostgreSQL cannot store and constraint violations all become
 * contract errors.
 * The parsed tree is kept beside the typed value because the idempotency fingerprint is computed from it.
 */
@ApplicationScoped
public class JsonRequests {

    public record Parsed<T>(JsonNode tree, T value) {
    }

    private final ObjectMapper strict;
    private final Validator validator;

    @Inject
    public JsonRequests(Validator validator) {
        this.validator = validator;
        this.strict = JsonMapper.builder()
                .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
                .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
                .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
                .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
                .disable(DeserializationFeature.ACCEPT_FLOAT_AS_INT)
                .disable(MapperFeature.ALLOW_COERCION_OF_SCALARS)
                .withCoercionConfig(LogicalType.Textual, text -> text
                        .setCoercion(CoercionInputShape.Integer, CoercionAction.Fail)
                        .setCoercion(CoercionInputShape.Float, CoercionAction.Fail)
                        .setCoercion(CoercionInputShape.Boolean, CoercionAction.Fail))
                .build();
    }

    public <T> Parsed<T> read(byte[] body, Class<T> type) {
        JsonNode tree = objectTree(body);
        return new Parsed<>(tree, value(tree, type));
    }

    /** The body as a JSON object tree, read as {@link #tree} does; a body of another JSON value is refused. */
    public JsonNode objectTree(byte[] body) {
        if (body != null && body.length > RequestLimits.MAX_BODY_BYTES) {
            throw new ProblemException(RequestLimits.payloadTooLarge());
        }
        JsonNode tree = tree(body);
        if (!tree.isObject()) {
            throw new ProblemException(Problem.validation(List.of(
                    new Problem.FieldError("", "the request body must be a JSON object"))));
        }
        return tree;
    }

    /** A tree from {@link #objectTree} bound strictly to {@code type} and validated. */
    public <T> T value(JsonNode tree, Class<T> type) {
        T value;
        try {
            value = strict.treeToValue(tree, type);
        } catch (JsonMappingException e) {
            throw new ProblemException(Problem.validation(List.of(fieldError(e))));
        } catch (IOException e) {
            throw new ProblemException(malformed());
        }
        var violations = validator.validate(value);
        if (!violations.isEmpty()) {
            throw new ProblemException(Problem.validation(violations.stream()
                    .map(v -> new Problem.FieldError(v.getPropertyPath().toString(), v.getMessage()))
                    .sorted(Comparator.comparing(Problem.FieldError::field))
                    .toList()));
        }
        return value;
    }

    /**
     * The body as a JSON tree, read strictly ({@code MALFORMED_JSON} when it is not one JSON value), with every string
     * and field name in it storable ({@code VALIDATION_FAILED} naming the first that is not).
     */
    public JsonNode tree(byte[] body) {
        if (body == null || body.length == 0) {
            throw new ProblemException(malformed());
        }
        JsonNode tree;
        try (JsonParser parser = strict.createParser(body)) {
            tree = strict.readTree(parser);
            if (tree == null || parser.nextToken() != null) {
                throw new ProblemException(malformed());
            }
        } catch (IOException e) {
            throw new ProblemException(malformed());
        }
        StorableText.firstRefusal(tree).ifPresent(refused -> {
            throw new ProblemException(Problem.validation(List.of(refused)));
        });
        return tree;
    }

    private static Problem malformed() {
        return Problem.of(400, "MALFORMED_JSON", "Malformed JSON", "The request body is not well-formed JSON.");
    }

    private static Problem.FieldError fieldError(JsonMappingException e) {
        String field = path(e);
        if (e instanceof UnrecognizedPropertyException) {
            return new Problem.FieldError(field, "unknown field");
        }
        if (e instanceof InvalidFormatException || e instanceof MismatchedInputException) {
            return new Problem.FieldError(field, "wrong type");
        }
        return new Problem.FieldError(field, "invalid value");
    }

    private static String path(JsonMappingException e) {
        StringBuilder path = new StringBuilder();
        for (JsonMappingException.Reference ref : e.getPath()) {
            if (ref.getFieldName() != null) {
                if (!path.isEmpty()) {
                    path.append('.');
                }
                path.append(ref.getFieldName());
            } else if (ref.getIndex() >= 0) {
                path.append('[').append(ref.getIndex()).append(']');
            }
        }
        return path.toString();
    }
}
