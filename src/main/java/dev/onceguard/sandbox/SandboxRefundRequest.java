package dev.onceguard.sandbox;

import io.quarkus.runtime.annotations.RegisterForReflection;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
import jakarta.validation.constraints.Size;

import java.util.Map;

/** Body of {@code POST /sandbox/v1/refunds}: a refund of (part of) sandbox payment {@code payment}. */
@RegisterForReflection
public record SandboxRefundRequest(
        @NotBlank @Size(max = 255) String payment,
        @NotNull @Pattern(regexp = "\\d{1,12}\\.\\d{2}", message = "must be a decimal string with two places") String amount,
        @NotNull @Pattern(regexp = "[A-Z]{3}", message = "must be an ISO 4217 code in upper case") String currency,
        @Size(max = 50) Map<@NotBlank @Size(max = 40) String, @NotNull @Size(max = 500) String> metadata) {

    Map<String, String> metadataOrEmpty() {
        return metadata == null ? Map.of() : metadata;
    }
}
