package dev.onceguard;

import io.smallrye.jwt.build.Jwt;
import io.smallrye.jwt.build.JwtClaimsBuilder;

import java.util.UUID;

/** Bearer tokens signed with the test profile's HS256 key (src/test/resources/jwt/test-hs256.jwk). */
public final class TestTokens {

    public static final String ISSUER = "https://onceguard.test";
    public static final String SECRET = "onceguard-test-signing-secret-32b!";
    /** The audience the API requires, in the test profile as in the packaged artifact's runs (prod profile). */
    public static final String AUDIENCE = "https://onceguard.test/api";

    private TestTokens() {
    }

    /** The claims of a token minted for this API, for {@code userId}: a test adds or changes the rest, then signs. */
    public static JwtClaimsBuilder forThisApi(String userId) {
        return Jwt.issuer(ISSUER).audience(AUDIENCE).subject(userId);
    }

    public static String bearer(String userId) {
        return "Bearer " + forThisApi(userId).signWithSecret(SECRET);
    }

    /** A back-office system's token: its {@code groups} claim holds {@code refunds}. */
    public static String refunds(String userId) {
        return "Bearer " + forThisApi(userId).groups("refunds").signWithSecret(SECRET);
    }

    public static String newUser() {
        return "u-" + UUID.randomUUID();
    }
}
