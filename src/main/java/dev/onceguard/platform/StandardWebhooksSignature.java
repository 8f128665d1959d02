package dev.onceguard.platform;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Map;

/**
 * The Standard Webhooks signature scheme (standardwebhooks.com): {@code webhook-signature: v1,<base64 HMAC-SHA256 of
 * "{webhook-id}.{webhook-timestamp}.{body}">}, keyed with the base64 part of a {@code whsec_…} secret. A header may
 * carry several space-separated signatures (during a secret rotation); one match is enough. The sandbox signs with it
 * and the sandbox adapter verifies with it, so it sits below both.
 */
public final class StandardWebhooksSignature {

    public static final String ID = "webhook-id";
    public static final String TIMESTAMP = "webhook-timestamp";
    public static final String SIGNATURE = "webhook-signature";
    public static final Duration TOLERANCE = Duration.ofMinutes(5);
    public static final String SECRET_PREFIX = "whsec_";
    private static final String VERSION = "v1";

    private StandardWebhooksSignature() {
    }

    /** @return the {@code webhook-signature} value for one delivery */
    public static String sign(String id, long timestampSeconds, byte[] body, String secret) {
        return VERSION + "," + Base64.getEncoder().encodeToString(hmac(id, timestampSeconds, body, key(secret)));
    }

    /**
     * @param headers request headers, names in lower case
     * @throws Rejected when a header is missing, the timestamp is more than {@link #TOLERANCE} away from
     *                         {@code now}, or no signature matches
     */
    public static void verify(Map<String, String> headers, byte[] body, String secret, Instant now) throws Rejected {
        String id = required(headers, ID);
        String timestamp = required(headers, TIMESTAMP);
        String signatures = required(headers, SIGNATURE);
        long seconds;
        try {
            seconds = Long.parseLong(timestamp);
        } catch (NumberFormatException e) {
            throw new Rejected("webhook-timestamp is not a number of seconds");
        }
        if (Math.abs(now.getEpochSecond() - seconds) > TOLERANCE.toSeconds()) {
            throw new Rejected("webhook-timestamp is more than " + TOLERANCE.toMinutes() + " minutes away");
        }
        byte[] expected = Base64.getEncoder().encode(hmac(id, seconds, body, key(secret)));
        for (String candidate : signatures.split(" ")) {
            int comma = candidate.indexOf(',');
            if (comma > 0 && candidate.substring(0, comma).equals(VERSION)
                    && MessageDigest.isEqual(expected, candidate.substring(comma + 1).getBytes(StandardCharsets.US_ASCII))) {
                return;
            }
        }
        throw new Rejected("no matching webhook-signature");
    }

    /** @return whether {@code secret} has the {@code whsec_<base64>} form */
    public static boolean isWellFormed(String secret) {
        try {
            return key(secret).length > 0;
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    private static String required(Map<String, String> headers, String name) throws Rejected {
        String value = headers.get(name);
        if (value == null || value.isBlank()) {
            throw new Rejected("missing " + name + " header");
        }
        return value.strip();
    }

    private static byte[] key(String secret) {
        if (secret == null || !secret.startsWith(SECRET_PREFIX)) {
            throw new IllegalArgumentException("a Standard Webhooks secret starts with " + SECRET_PREFIX);
        }
        return Base64.getDecoder().decode(secret.substring(SECRET_PREFIX.length()));
    }

    private static byte[] hmac(String id, long timestampSeconds, byte[] body, byte[] key) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(key, "HmacSHA256"));
            mac.update((id + "." + timestampSeconds + ".").getBytes(StandardCharsets.UTF_8));
            return mac.doFinal(body);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("every JVM has HmacSHA256", e);
        }
    }

    /** The delivery is not authentic or too old. Its message never contains the secret. */
    public static class Rejected extends Exception {

        public Rejected(String message) {
            super(message);
        }
    }
}
