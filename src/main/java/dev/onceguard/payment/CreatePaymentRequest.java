package dev.onceguard.payment;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import io.quarkus.runtime.annotations.RegisterForReflection;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.Size;

/** Body of {@code POST /api/orders/{orderId}/payments}. */
@RegisterForReflection
public record CreatePaymentRequest(@NotBlank @Size(max = 255) String paymentMethodToken) {

    /** The body as a record may keep it: the token replaced by its last four characters. */
    public static JsonNode forStorage(JsonNode body) {
        if (body instanceof ObjectNode object && object.get("paymentMethodToken") instanceof TextNode token) {
            String value = token.textValue();
            object.put("paymentMethodToken", value.substring(Math.max(0, value.length() - 4)));
        }
        return body;
    }

    @Override
    public String toString() {
        return "CreatePaymentRequest[paymentMethodToken=<redacted>]";
    }
}
