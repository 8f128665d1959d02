package dev.onceguard.platform.embedded;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.smallrye.config.SmallRyeConfigBuilder;
import io.smallrye.config.PropertiesConfigSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** A demo token for any user id, signed with embedded mode's own key, as the banner and {@code demo-token} print it. */
class DemoTokenTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dataFolder;

    @Test
    void aTokenForAnyUserIdIsSignedWithTheFoldersDemoKey() throws Exception {
        DemoAccess access = DemoAccess.prepare(dataFolder);

        String token = access.userToken("customer-42");

        String[] parts = token.split("\\.");
        JsonNode claims = JSON.readTree(Base64.getUrlDecoder().decode(parts[1]));
        assertThat(claims.get("sub").asText()).isEqualTo("customer-42");
        assertThat(claims.get("iss").asText()).isEqualTo(DemoAccess.ISSUER);
        byte[] key = Base64.getUrlDecoder().decode(JSON.readTree(dataFolder.resolve(DemoAccess.SIGNING_KEY_FILE).toFile())
                .get("k").asText());
        Mac hmac = Mac.getInstance("HmacSHA256");
        hmac.init(new SecretKeySpec(key, "HmacSHA256"));
        String signature = Base64.getUrlEncoder().withoutPadding().encodeToString(
                hmac.doFinal((parts[0] + "." + parts[1]).getBytes(StandardCharsets.US_ASCII)));
        assertThat(parts[2]).isEqualTo(signature);
        assertThat(JSON.readTree(Base64.getUrlDecoder().decode(access.userToken(DemoAccess.SECOND_USER).split("\\.")[1]))
                .get("sub").asText()).isEqualTo("demo-user-2");
    }

    @Test
    void theDemoTokenCommandNeedsAUserIdAndAFolderWithAKey() {
        var config = new SmallRyeConfigBuilder().withSources(new PropertiesConfigSource(
                Map.of(EmbeddedMode.DATA_FOLDER, dataFolder.toString()), "test", 500)).build();

        assertThat(OnceguardMain.printDemoToken(config, OnceguardMain.DEMO_TOKEN)).isEqualTo(2);
        assertThat(OnceguardMain.printDemoToken(config, OnceguardMain.DEMO_TOKEN, "alice")).isEqualTo(1);
        DemoAccess.prepare(dataFolder);
        assertThat(Files.exists(dataFolder.resolve(DemoAccess.SIGNING_KEY_FILE))).isTrue();
        assertThat(OnceguardMain.printDemoToken(config, OnceguardMain.DEMO_TOKEN, "alice")).isZero();
    }
}
