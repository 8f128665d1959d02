package dev.onceguard.idempotency;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.erdtman.jcs.JsonCanonicalizer;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Map;
import java.util.TreeMap;

/**
 * SHA-256 over the RFC 8785 (JCS) canonical form of {@code {"body": <parsed body>, "path": {<path params>}}}:
 * re-ordered keys and other whitespace give the same fingerprint; transport headers are not part of it.
 */
public final class Fingerprint {

    private static final ObjectMapper JSON = new ObjectMapper();

    private Fingerprint() {
    }

    public static String of(Map<String, String> pathParameters, JsonNode body) {
        ObjectNode request = JSON.createObjectNode();
        request.set("body", body);
        request.set("path", JSON.valueToTree(new TreeMap<>(pathParameters)));
        try {
            String canonical = new JsonCanonicalizer(JSON.writeValueAsString(request)).getEncodedString();
            return HexFormat.of().formatHex(sha256(canonical.getBytes(StandardCharsets.UTF_8)));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static byte[] sha256(byte[] bytes) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(bytes);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JVM has SHA-256", e);
        }
    }
}
