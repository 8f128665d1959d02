package dev.onceguard.idempotency;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.onceguard.platform.Problem;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.ws.rs.core.HttpHeaders;

import java.util.HashMap;
import java.util.Map;

/**
 * Builds the responses an operation answers with, as the engine stores and replays them: the bytes written now are the
 * bytes every replay returns. An operation builds its own answers here; the engine only stores and replays them.
 */
@ApplicationScoped
public class StoredResponses {

    private final ObjectMapper json;

    public StoredResponses(ObjectMapper json) {
        this.json = json;
    }

    public StoredResponse problem(Problem problem, Map<String, String> extraHeaders) {
        return stored(problem.status(), Problem.MEDIA_TYPE, problem, extraHeaders, null, null);
    }

    /** A JSON body as a storable response, naming the resource it produced. */
    public StoredResponse json(int status, Object body, Map<String, String> extraHeaders, String resourceType,
                               String resourceId) {
        return stored(status, "application/json", body, extraHeaders, resourceType, resourceId);
    }

    private StoredResponse stored(int status, String contentType, Object body, Map<String, String> extraHeaders,
                                  String resourceType, String resourceId) {
        Map<String, String> headers = new HashMap<>(extraHeaders);
        headers.put(HttpHeaders.CONTENT_TYPE, contentType);
        try {
            return new StoredResponse(status, headers, json.writeValueAsBytes(body), resourceType, resourceId);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("response body not serializable", e);
        }
    }
}
