package dev.onceguard.platform;

import jakarta.ws.rs.core.Response;

import java.util.Optional;

/** A surface that answers refused input with a page of its own instead of problem+json (the console's HTML). */
public interface RefusalPages {

    /** The page refusing {@code input} on {@code path}, or empty when {@code path} is not this surface's. */
    Optional<Response> page(String path, UnstorableInput input);
}
