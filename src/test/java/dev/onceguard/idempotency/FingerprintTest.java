package dev.onceguard.idempotency;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class FingerprintTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    private static String of(String body) throws Exception {
        JsonNode tree = JSON.readTree(body);
        return Fingerprint.of(Map.of(), tree);
    }

    @Test
    void keyOrderAndWhitespaceDoNotMatter() throws Exception {
        assertThat(of("{\"a\":1,\"b\":[1,2,{\"y\":\"z\",\"x\":null}]}"))
                .isEqualTo(of(" { \"b\" : [ 1 , 2 , { \"x\" : null , \"y\" : \"z\" } ] ,\n\"a\" : 1 } "));
    }

    @Test
    void theDigestOfTheBytesNeverTakesBytesOfThePathForBytesOfTheBody() {
        byte[] body = "{}".getBytes(StandardCharsets.UTF_8);

        assertThat(Fingerprint.ofBytes(Map.of("orderId", "ord_1"), body))
                .isEqualTo(Fingerprint.ofBytes(Map.of("orderId", "ord_1"), "{}".getBytes(StandardCharsets.UTF_8)))
                .isNotEqualTo(Fingerprint.ofBytes(Map.of("orderId", "ord_2"), body));
        assertThat(Fingerprint.ofBytes(Map.of("orderId", "A"), "\0\u0001B".getBytes(StandardCharsets.UTF_8)))
                .isNotEqualTo(Fingerprint.ofBytes(Map.of("orderId", "A\0\u0001"), "B".getBytes(StandardCharsets.UTF_8)));
    }

    @Test
    void numbersAreComparedAsNumbers() throws Exception {
        assertThat(of("{\"q\":1}")).isEqualTo(of("{\"q\":1.0}")).isEqualTo(of("{\"q\":1e0}"));
    }

    @Test
    void valuesArrayOrderAndPathParametersMatter() throws Exception {
        JsonNode body = JSON.readTree("{\"token\":\"tok_success\"}");

        assertThat(of("{\"q\":1}")).isNotEqualTo(of("{\"q\":2}"));
        assertThat(of("{\"a\":[1,2]}")).isNotEqualTo(of("{\"a\":[2,1]}"));
        assertThat(Fingerprint.of(Map.of("orderId", "ord_1"), body))
                .isNotEqualTo(Fingerprint.of(Map.of("orderId", "ord_2"), body));
    }

    @Test
    void isAHexSha256() throws Exception {
        assertThat(of("{}")).matches("[0-9a-f]{64}");
    }
}
