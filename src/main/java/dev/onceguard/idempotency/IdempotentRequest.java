package dev.onceguard.idempotency;

import dev.onceguard.platform.RequestIds;

import java.util.function.Supplier;

/**
 * A request to run an operation once: its scope (user, the operation's own name, key), the fingerprint of its
 * business content, the request's ids (the service's and the client's), the body the operation works on, and the body
 * as the record keeps it (JSON, with whatever the operation must never store already replaced).
 *
 * <p>The key and the JSON are checked before this exists; the typed body (bound and validated) and the stored body
 * are worked out on first use, because a replay of a finished record with the same fingerprint needs neither: its
 * body is the one that was validated and stored the first time. A request is handled by one thread at a time.
 *
 * @param bytesDigest the digest of the request's path parameters and body bytes as received
 *                    ({@link Fingerprint#ofBytes})
 */
public record IdempotentRequest<T>(String operation, String userId, IdempotencyKey key, String fingerprint,
                                   String bytesDigest, RequestIds requestIds, Supplier<T> validatedBody,
                                   Supplier<String> bodyForStorage) {

    public IdempotentRequest {
        validatedBody = new OnFirstUse<>(validatedBody);
        bodyForStorage = new OnFirstUse<>(bodyForStorage);
    }

    /** A value worked out by its supplier when first asked for, then kept. */
    private static final class OnFirstUse<V> implements Supplier<V> {

        private Supplier<V> supplier;
        private V value;

        OnFirstUse(Supplier<V> supplier) {
            this.supplier = supplier;
        }

        @Override
        public V get() {
            if (supplier != null) {
                value = supplier.get();
                supplier = null;
            }
            return value;
        }
    }

    /** The id the service generated for the request that asked. */
    public String requestId() {
        return requestIds.id();
    }

    /**
     * The body bound to its type and validated, on first use.
     *
     * @throws dev.onceguard.platform.ProblemException 400 when it does not bind or validate
     */
    public T body() {
        return validatedBody.get();
    }

    /** The body as the record stores it, on first use. */
    String storedBody() {
        return bodyForStorage.get();
    }
}
