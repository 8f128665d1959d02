package dev.onceguard.platform;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Expiry;
import io.smallrye.jwt.auth.principal.DefaultJWTParser;
import io.smallrye.jwt.auth.principal.JWTAuthContextInfo;
import io.smallrye.jwt.auth.principal.JWTParser;
import io.smallrye.jwt.auth.principal.ParseException;
import jakarta.annotation.Priority;
import jakarta.enterprise.inject.Alternative;
import jakarta.inject.Singleton;
import org.eclipse.microprofile.jwt.JsonWebToken;

import javax.crypto.SecretKey;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.time.Duration;
import java.time.Instant;

/**
 * The bearer token parser, remembering each token it verified until the token expires: a client sends the same
 * token with every request, and its signature and claims do not change, so they are checked once. A token that
 * fails verification is never remembered, and neither is one issued in the future.
 */
@Alternative
@Priority(1)
@Singleton
public class VerifiedTokens implements JWTParser {

    private static final int MAX_TOKENS = 10_000;
    /**
     * A token issued later than this ahead of the service's clock is refused: the verifier checks {@code exp} and the
     * maximum lifetime ({@code smallrye.jwt.time-to-live}, from {@code iat} to {@code exp}), but not an {@code iat}
     * in the future, with which a token could move its lifetime forward at will. The verifier's own clock skew.
     */
    private static final long ISSUED_AT_SKEW_SECONDS = 60;

    private final DefaultJWTParser verifier;
    private final Cache<String, JsonWebToken> verified = RequestPathCaches.newBuilder()
            .maximumSize(MAX_TOKENS)
            .expireAfter(Expiry.creating((String token, JsonWebToken jwt) -> Duration.ofNanos(Math.max(0,
                    Duration.between(Instant.now(), Instant.ofEpochSecond(jwt.getExpirationTime())).toNanos()))))
            .build();

    public VerifiedTokens(DefaultJWTParser verifier) {
        this.verifier = verifier;
    }

    @Override
    public JsonWebToken parse(String token) throws ParseException {
        JsonWebToken known = verified.getIfPresent(token);
        if (known != null && Instant.now().getEpochSecond() < known.getExpirationTime()) {
            return known;
        }
        JsonWebToken jwt = verifier.parse(token);
        if (jwt.getIssuedAtTime() > Instant.now().getEpochSecond() + ISSUED_AT_SKEW_SECONDS) {
            throw new ParseException("the token's iat is in the future");
        }
        if (jwt.getExpirationTime() > 0) {
            verified.put(token, jwt);
        }
        return jwt;
    }

    @Override
    public JsonWebToken parse(String token, JWTAuthContextInfo context) throws ParseException {
        return verifier.parse(token, context);
    }

    @Override
    public JsonWebToken verify(String token, PublicKey key) throws ParseException {
        return verifier.verify(token, key);
    }

    @Override
    public JsonWebToken verify(String token, SecretKey key) throws ParseException {
        return verifier.verify(token, key);
    }

    @Override
    public JsonWebToken verify(String token, String secret) throws ParseException {
        return verifier.verify(token, secret);
    }

    @Override
    public JsonWebToken decrypt(String token, PrivateKey key) throws ParseException {
        return verifier.decrypt(token, key);
    }

    @Override
    public JsonWebToken decrypt(String token, SecretKey key) throws ParseException {
        return verifier.decrypt(token, key);
    }

    @Override
    public JsonWebToken decrypt(String token, String secret) throws ParseException {
        return verifier.decrypt(token, secret);
    }

    @Override
    public JsonWebToken parseOnly(String token) throws ParseException {
        return verifier.parseOnly(token);
    }
}
