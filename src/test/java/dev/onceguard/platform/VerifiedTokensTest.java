package dev.onceguard.platform;

import dev.onceguard.TestTokens;
import io.smallrye.jwt.algorithm.SignatureAlgorithm;
import io.smallrye.jwt.auth.principal.DefaultJWTParser;
import io.smallrye.jwt.auth.principal.JWTAuthContextInfo;
import io.smallrye.jwt.auth.principal.ParseException;
import io.smallrye.jwt.build.Jwt;
import org.eclipse.microprofile.jwt.JsonWebToken;
import org.junit.jupiter.api.Test;

import javax.crypto.spec.SecretKeySpec;
import java.nio.charset.StandardCharsets;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** A bearer token's signature and claims are checked once per token, and a token that fails is never kept. */
class VerifiedTokensTest {

    /** The real verifier, counting how often it is asked. */
    static final class CountingVerifier extends DefaultJWTParser {
        int verified;

        CountingVerifier() {
            super(context());
        }

        private static JWTAuthContextInfo context() {
            JWTAuthContextInfo context = new JWTAuthContextInfo();
            context.setSecretVerificationKey(new SecretKeySpec(TestTokens.SECRET.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
            context.setSignatureAlgorithm(Set.of(SignatureAlgorithm.HS256));
            context.setIssuedBy(TestTokens.ISSUER);
            return context;
        }

        @Override
        public JsonWebToken parse(String token) throws ParseException {
            verified++;
            return super.parse(token);
        }
    }

    @Test
    void theSameTokenIsVerifiedOnceAndAnsweredFromMemoryUntilItExpires() throws ParseException {
        CountingVerifier verifier = new CountingVerifier();
        VerifiedTokens tokens = new VerifiedTokens(verifier);
        String token = Jwt.issuer(TestTokens.ISSUER).subject("u-1").expiresIn(60).signWithSecret(TestTokens.SECRET);

        JsonWebToken first = tokens.parse(token);
        JsonWebToken second = tokens.parse(token);

        assertThat(second.getSubject()).isEqualTo(first.getSubject()).isEqualTo("u-1");
        assertThat(verifier.verified).isEqualTo(1);
    }

    @Test
    void aTokenThatFailsVerificationIsCheckedAgainEachTime() {
        CountingVerifier verifier = new CountingVerifier();
        VerifiedTokens tokens = new VerifiedTokens(verifier);
        String forged = Jwt.issuer(TestTokens.ISSUER).subject("u-1").expiresIn(60)
                .signWithSecret("another-signing-secret-of-32-bytes!!");

        assertThatThrownBy(() -> tokens.parse(forged)).isInstanceOf(ParseException.class);
        assertThatThrownBy(() -> tokens.parse(forged)).isInstanceOf(ParseException.class);
        assertThat(verifier.verified).isEqualTo(2);
    }

    @Test
    void aTokenIssuedInTheFutureIsRefusedAndNotKept() {
        CountingVerifier verifier = new CountingVerifier();
        VerifiedTokens tokens = new VerifiedTokens(verifier);
        java.time.Instant tomorrow = java.time.Instant.now().plus(java.time.Duration.ofDays(1));
        String token = Jwt.issuer(TestTokens.ISSUER).subject("u-1").issuedAt(tomorrow)
                .expiresAt(tomorrow.plusSeconds(300)).signWithSecret(TestTokens.SECRET);

        assertThatThrownBy(() -> tokens.parse(token)).isInstanceOf(ParseException.class);
        assertThatThrownBy(() -> tokens.parse(token)).isInstanceOf(ParseException.class);
        assertThat(verifier.verified).isEqualTo(2);
    }
}
