package dev.onceguard.idempotency;

/**
 * A validated request to run an operation once: its scope (user, operation, key), the fingerprint of its
 * business content, the request id that asked, and the parsed body the operation works on.
 */
public record IdempotentRequest<T>(Operation operation, String userId, IdempotencyKey key, String fingerprint,
                                   String requestId, T body) {
}
