package dev.onceguard.platform.embedded;

import io.smallrye.jwt.build.Jwt;

import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Base64;
import java.util.Map;
import java.util.Properties;

/**
 * The way into a service in embedded mode, kept in its data folder: an HS256 signing key (a JWK {@code oct} file)
 * that the API verifies bearer tokens with, so that a demo user's token can be printed, and a generated console
 * admin password. Both are generated on first start, readable by the owner only, and kept across restarts.
 */
final class DemoAccess {

    static final String ISSUER = "onceguard-demo";
    static final String AUDIENCE = "onceguard-demo-api";
    static final String USER = "demo-user";
    /** A second customer, so that one user's console view can be told from another's. */
    static final String SECOND_USER = "demo-user-2";
    static final String ADMIN = "admin";
    static final String SIGNING_KEY_FILE = "demo-signing-key.jwk";
    static final Duration TOKEN_LIFESPAN = Duration.ofDays(30);

    private final Path signingKey;
    private final Path adminLogin;
    private final Path sessionKey;

    private DemoAccess(Path folder) {
        this.signingKey = folder.resolve(SIGNING_KEY_FILE);
        this.adminLogin = folder.resolve("console-admin.properties");
        this.sessionKey = folder.resolve("console-session.key");
    }

    static DemoAccess in(Path folder) {
        return new DemoAccess(folder);
    }

    /** Generates whatever is missing; never replaces a key or password that exists. */
    static DemoAccess prepare(Path folder) {
        DemoAccess access = new DemoAccess(folder);
        SecureRandom random = new SecureRandom();
        if (!Files.exists(access.signingKey)) {
            writeOwnerOnly(access.signingKey, "{\"kty\":\"oct\",\"kid\":\"" + ISSUER + "\",\"alg\":\"HS256\",\"k\":\""
                    + randomBase64Url(random, 32) + "\"}\n");
        }
        if (!Files.exists(access.adminLogin)) {
            writeOwnerOnly(access.adminLogin, """
                    # Console login of embedded mode, generated on first start. Delete this file for a new password.
                    username=%s
                    password=%s
                    """.formatted(ADMIN, randomBase64Url(random, 18)));
        }
        if (!Files.exists(access.sessionKey)) {
            writeOwnerOnly(access.sessionKey, randomBase64Url(random, 32));
        }
        return access;
    }

    Path adminLogin() {
        return adminLogin;
    }

    /** How the API verifies bearer tokens in embedded mode: with the demo key only. */
    Map<String, String> verificationSettings() {
        return Map.of(
                "smallrye.jwt.verify.key.location", signingKey.toString(),
                "smallrye.jwt.verify.algorithm", "HS256",
                "mp.jwt.verify.issuer", ISSUER,
                "mp.jwt.verify.audiences", AUDIENCE,
                "smallrye.jwt.time-to-live", String.valueOf(TOKEN_LIFESPAN.toSeconds()));
    }

    /**
     * The console's admin login, as the built-in user that the console's form and Basic login accept, and the key of
     * its login cookie, kept so that a sign-in survives a restart.
     */
    Map<String, String> consoleSettings() {
        Properties login = new Properties();
        String cookieKey;
        try (Reader reader = Files.newBufferedReader(adminLogin)) {
            login.load(reader);
            cookieKey = Files.readString(sessionKey).strip();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        String username = login.getProperty("username", ADMIN);
        return Map.of(
                "quarkus.security.users.embedded.users." + username, login.getProperty("password"),
                "quarkus.security.users.embedded.roles." + username, "admin",
                "quarkus.http.auth.session.encryption-key", cookieKey);
    }

    /** A bearer token for any user id, signed with this folder's demo key. */
    String userToken(String userId) {
        return Jwt.issuer(ISSUER).audience(AUDIENCE).subject(userId).expiresIn(TOKEN_LIFESPAN)
                .sign(signingKey.toString());
    }

    boolean hasSigningKey() {
        return Files.exists(signingKey);
    }

    private static String randomBase64Url(SecureRandom random, int bytes) {
        byte[] value = new byte[bytes];
        random.nextBytes(value);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(value);
    }

    // Written whole under another name and then renamed, so that a crash never leaves a truncated key behind.
    private static void writeOwnerOnly(Path target, String content) {
        try {
            Path partial = Files.createTempFile(target.getParent(), target.getFileName().toString(), ".partial",
                    PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
            Files.writeString(partial, content);
            Files.move(partial, target, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
