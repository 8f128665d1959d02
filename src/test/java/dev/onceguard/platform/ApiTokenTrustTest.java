package dev.onceguard.platform;

import dev.onceguard.TestTokens;
import io.quarkus.test.junit.QuarkusTest;
import io.smallrye.jwt.build.Jwt;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;

import static io.restassured.RestAssured.given;

/**
 * Tokens as a holder of tokens minted for other purposes would try them, each signed with the right key by the right
 * issuer: for another API, for no API, living a hundred years, issued tomorrow. With the audience and the maximum
 * lifetime production sets (the test profile sets them too), only a token minted for this API, for a reasonable time,
 * opens it.
 */
@QuarkusTest
class ApiTokenTrustTest {

    @Test
    void onlyATokenMintedForThisApiForAReasonableTimeOpensIt() {
        String user = TestTokens.newUser();
        products(TestTokens.bearer(user)).then().statusCode(200);

        products(bearer(Jwt.issuer(TestTokens.ISSUER).subject(user).audience("https://payroll.example/api")))
                .then().statusCode(401);
        products(bearer(Jwt.issuer(TestTokens.ISSUER).subject(user))).then().statusCode(401);
        products(bearer(TestTokens.forThisApi(user)
                .expiresAt(Instant.now().plus(Duration.ofDays(36_500))))).then().statusCode(401);
        Instant tomorrow = Instant.now().plus(Duration.ofDays(1));
        products(bearer(TestTokens.forThisApi(user)
                .issuedAt(tomorrow).expiresAt(tomorrow.plus(Duration.ofMinutes(5))))).then().statusCode(401);
    }

    private static io.restassured.response.Response products(String authorization) {
        return given().header("Authorization", authorization).get("/api/products");
    }

    private static String bearer(io.smallrye.jwt.build.JwtClaimsBuilder claims) {
        return "Bearer " + claims.signWithSecret(TestTokens.SECRET);
    }
}
