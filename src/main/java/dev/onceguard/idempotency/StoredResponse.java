package dev.onceguard.idempotency;

import java.util.Map;

/**
 * A response exactly as it is (or will be) replayed: status, the headers that matter, the body bytes,
 * and the business resource it produced, if any.
 */
public record StoredResponse(int status, Map<String, String> headers, byte[] body, String resourceType, String resourceId) {

    public StoredResponse {
        headers = Map.copyOf(headers);
    }
}
