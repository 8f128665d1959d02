package dev.onceguard.idempotency;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.erdtman.jcs.JsonCanonicalizer;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
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
            return HexFormat.of().formatHex(sha256().digest(canonical.getBytes(StandardCharsets.UTF_8)));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * SHA-256 over the path parameters and the body exactly as received: equal bytes parse to the same tree, so a
     * request whose bytes were once fingerprinted need not be parsed again to know its fingerprint.
     */
    static String ofBytes(Map<String, String> pathParameters, byte[] body) {
        MessageDigest digest = sha256();
        new TreeMap<>(pathParameters).forEach((name, value) -> {
            withLength(digest, name.getBytes(StandardCharsets.UTF_8));
            withLength(digest, value.getBytes(StandardCharsets.UTF_8));
        });
        withLength(digest, body);
        return HexFormat.of().formatHex(digest.digest());
    }

    /** Each part prefixed by its length, so that no two different requests give the same sequence of bytes. */
    private static void withLength(MessageDigest digest, byte[] part) {
        digest.update(ByteBuffer.allocate(Integer.BYTES).putInt(part.length).array());
        digest.update(part);
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JVM has SHA-256", e);
        }
    }
}
