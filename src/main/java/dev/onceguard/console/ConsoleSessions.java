package dev.onceguard.console;

import dev.onceguard.platform.SqlRows;
import jakarta.enterprise.context.ApplicationScoped;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Base64;

/**
 * The server's side of a console form sign-in ({@code console_sessions}). The encrypted cookie of Quarkus' form
 * authentication only says who signed in and is renewed while the user is active, so on its own it outlives a sign-out
 * and never ends. Each sign-in therefore also gets a random session token, kept by the browser in a cookie of its own
 * and by this table as its SHA-256: a request signed in by the form is accepted only while its token's row is open and
 * younger than the absolute lifetime. Every replica reads the same table, so a sign-out ends the session everywhere.
 */
@ApplicationScoped
class ConsoleSessions {

    private final SqlRows sql;
    private final Duration lifetime;
    private final SecureRandom random = new SecureRandom();

    ConsoleSessions(SqlRows sql, ConsoleConfig config) {
        this.sql = sql;
        this.lifetime = config.session().absoluteLifetime();
    }

    Duration lifetime() {
        return lifetime;
    }

    /** Opens a session for {@code user} and returns its token; sessions long over are deleted on the way. */
    String start(String user) {
        byte[] bytes = new byte[32];
        random.nextBytes(bytes);
        String token = Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
        sql.update("DELETE FROM console_sessions WHERE started_at < now() - make_interval(secs => ?::double precision)",
                2 * lifetime.toSeconds());
        sql.update("INSERT INTO console_sessions (token_sha256, user_name) VALUES (?, ?)", sha256(token), user);
        return token;
    }

    /** Whether {@code token} is an open session of {@code user} started within the absolute lifetime. */
    boolean active(String token, String user) {
        return !sql.list("""
                SELECT 1 FROM console_sessions WHERE token_sha256 = ? AND user_name = ? AND ended_at IS NULL
                AND started_at > now() - make_interval(secs => ?::double precision)""", row -> true,
                sha256(token), user, lifetime.toSeconds()).isEmpty();
    }

    void end(String token) {
        sql.update("UPDATE console_sessions SET ended_at = now() WHERE token_sha256 = ? AND ended_at IS NULL",
                sha256(token));
    }

    private static byte[] sha256(String token) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.US_ASCII));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every Java runtime", e);
        }
    }
}
