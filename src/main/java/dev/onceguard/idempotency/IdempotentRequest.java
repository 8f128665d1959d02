package dev.onceguard.idempotency;

/**
 * A validated request to run an operation once: its scope (user, the operation's own name, key), the fingerprint of
 * its business content, the request id that asked, the parsed body the operation works on, and the body as the
 * record keeps it (JSON, with whatever the operation must never store already replaced).
 */
public record IdempotentRequest<T>(String operation, String userId, IdempotencyKey key, String fingerprint,
                                   String requestId, T body, String storedBody) {
}
