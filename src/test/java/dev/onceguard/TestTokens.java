package dev.onceguard;

import io.smallrye.jwt.build.Jwt;

import java.util.UUID;

/** Bearer tokens signed with the test profile's HS256 key (src/test/resources/jwt/test-hs256.jwk). */
public final class TestTokens {

    public static final String ISSUER = "https://onceguard.test";
    public static final String SECRET = "onceguard-test-signing-secret-32b!";
    /** The audience the API requires, in the test profile as in the packaged artifact's runs (prod profile). */
    public static final String AUDIENCE = "https://onceguard.test/api";

    private TestTokens() {
    }

    public static String bearer(String userId) {
        return "Bearer " + Jwt.issuer(ISSUER).audience(AUDIENCE).subject(userId).signWithSecret(SECRET);
    }

    /** A back-office system's token: its {@code groups} claim holds {@code refunds}. */
    public static String refunds(String userId) {
        return "Bearer " + Jwt.issuer(ISSUER).audience(AUDIENCE).subject(userId).groups("refunds").signWithSecret(SECRET);
    }

    public static String newUser() {
        return "u-" + UUID.randomUUID();
    }
}
