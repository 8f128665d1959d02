package dev.onceguard.checkout;

import io.quarkus.runtime.annotations.RegisterForReflection;
import jakarta.validation.Valid;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
import jakarta.validation.constraints.Size;

import java.util.List;

/** Body of {@code POST /api/orders}. Prices are not part of it: they come from the catalog. */
@RegisterForReflection
public record CreateOrderRequest(
        @NotNull @Size(min = 1, max = 50) List<@NotNull @Valid Item> items,
        @NotNull @Pattern(regexp = "[A-Z]{3}", message = "must be an ISO 4217 code in upper case") String currency) {

    public record Item(
            @NotBlank @Size(max = 64) String productId,
            @NotNull @Min(1) @Max(100) Integer quantity) {
    }
}
