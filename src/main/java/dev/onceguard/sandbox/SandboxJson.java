package dev.onceguard.sandbox;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import jakarta.enterprise.context.ApplicationScoped;

import java.util.Map;

/** The sandbox's JSON: the metadata of payments and refunds as stored (jsonb) and read back, and its event bodies. */
@ApplicationScoped
public class SandboxJson {

    private static final TypeReference<Map<String, String>> METADATA = new TypeReference<>() {
    };

    private final ObjectMapper json;

    public SandboxJson(ObjectMapper json) {
        this.json = json;
    }

    String write(Object value) {
        try {
            return json.writeValueAsString(value);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("sandbox " + value.getClass().getSimpleName() + " is not serializable", e);
        }
    }

    Map<String, String> metadata(String stored) {
        try {
            return json.readValue(stored, METADATA);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("stored sandbox metadata is not a JSON object of strings", e);
        }
    }
}
