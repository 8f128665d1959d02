package dev.onceguard.platform;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import io.quarkus.runtime.annotations.RegisterForReflection;

import java.util.List;

/**
 * An RFC 9457 problem document. {@code code} is the stable machine-readable field clients switch on.
 */
@RegisterForReflection
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonPropertyOrder({"type", "title", "status", "detail", "code", "errors"})
public record Problem(String type, String title, int status, String detail, String code, List<FieldError> errors) {

    public static final String MEDIA_TYPE = "application/problem+json";

    public record FieldError(String field, String message) {
    }

    public static Problem of(int status, String code, String title, String detail) {
        return new Problem(typeOf(code), title, status, detail, code, null);
    }

    public static Problem validation(List<FieldError> errors) {
        return validation("The request body is well-formed JSON but does not satisfy the contract; see errors.",
                errors);
    }

    /** A 400 for request values that cannot be accepted, {@code detail} saying which (a query parameter, a header). */
    public static Problem validation(String detail, List<FieldError> errors) {
        return new Problem(typeOf("VALIDATION_FAILED"), "Request validation failed", 400, detail, "VALIDATION_FAILED",
                List.copyOf(errors));
    }

    private static String typeOf(String code) {
        return "https://onceguard.dev/problems/" + code.toLowerCase().replace('_', '-');
    }
}
