package dev.onceguard.platform;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;

import static dev.onceguard.platform.StandardWebhooksSignature.ID;
import static dev.onceguard.platform.StandardWebhooksSignature.SIGNATURE;
import static dev.onceguard.platform.StandardWebhooksSignature.TIMESTAMP;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class StandardWebhooksSignatureTest {

    // The example of the Standard Webhooks specification and its reference libraries.
    static final String SPEC_SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
    static final String SPEC_ID = "msg_p5jXN8AQM9LWM0D4loKWxJek";
    static final long SPEC_TIMESTAMP = 1614265330;
    static final byte[] SPEC_BODY = "{\"test\": 2432232314}".getBytes(StandardCharsets.UTF_8);
    static final String SPEC_SIGNATURE = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=";
    static final Instant SIGNED_AT = Instant.ofEpochSecond(SPEC_TIMESTAMP);

    static final String OTHER_SECRET = "whsec_b3RoZXItc2VjcmV0LW9mLWFub3RoZXItaW5zdGFsbA==";

    private static Map<String, String> headers(String signature) {
        Map<String, String> headers = new HashMap<>();
        headers.put(ID, SPEC_ID);
        headers.put(TIMESTAMP, Long.toString(SPEC_TIMESTAMP));
        headers.put(SIGNATURE, signature);
        return headers;
    }

    @Test
    void signsLikeTheSpecificationsExample() {
        assertThat(StandardWebhooksSignature.sign(SPEC_ID, SPEC_TIMESTAMP, SPEC_BODY, SPEC_SECRET)).isEqualTo(SPEC_SIGNATURE);
    }

    @Test
    void acceptsAValidSignature() {
        assertThatCode(() -> StandardWebhooksSignature.verify(headers(SPEC_SIGNATURE), SPEC_BODY, SPEC_SECRET, SIGNED_AT))
                .doesNotThrowAnyException();
    }

    @Test
    void refusesASignatureMadeWithAnotherSecret() {
        String forged = StandardWebhooksSignature.sign(SPEC_ID, SPEC_TIMESTAMP, SPEC_BODY, OTHER_SECRET);

        assertThatThrownBy(() -> StandardWebhooksSignature.verify(headers(forged), SPEC_BODY, SPEC_SECRET, SIGNED_AT))
                .isInstanceOf(StandardWebhooksSignature.Rejected.class).hasMessage("no matching webhook-signature");
    }

    @Test
    void refusesAChangedBodyIdOrTimestamp() {
        byte[] otherBody = "{\"test\": 2432232315}".getBytes(StandardCharsets.UTF_8);
        assertThatThrownBy(() -> StandardWebhooksSignature.verify(headers(SPEC_SIGNATURE), otherBody, SPEC_SECRET, SIGNED_AT))
                .isInstanceOf(StandardWebhooksSignature.Rejected.class);

        Map<String, String> otherId = headers(SPEC_SIGNATURE);
        otherId.put(ID, "msg_other");
        assertThatThrownBy(() -> StandardWebhooksSignature.verify(otherId, SPEC_BODY, SPEC_SECRET, SIGNED_AT))
                .isInstanceOf(StandardWebhooksSignature.Rejected.class);

        Map<String, String> otherTimestamp = headers(SPEC_SIGNATURE);
        otherTimestamp.put(TIMESTAMP, Long.toString(SPEC_TIMESTAMP + 1));
        assertThatThrownBy(() -> StandardWebhooksSignature.verify(otherTimestamp, SPEC_BODY, SPEC_SECRET, SIGNED_AT))
                .isInstanceOf(StandardWebhooksSignature.Rejected.class).hasMessage("no matching webhook-signature");
    }

    @Test
    void acceptsTimestampsUpToFiveMinutesAwayEitherWay() {
        assertThatCode(() -> StandardWebhooksSignature.verify(headers(SPEC_SIGNATURE), SPEC_BODY, SPEC_SECRET,
                SIGNED_AT.plusSeconds(300))).doesNotThrowAnyException();
        assertThatCode(() -> StandardWebhooksSignature.verify(headers(SPEC_SIGNATURE), SPEC_BODY, SPEC_SECRET,
                SIGNED_AT.minusSeconds(300))).doesNotThrowAnyException();
    }

    @Test
    void refusesAnOldTimestamp() {
        assertThatThrownBy(() -> StandardWebhooksSignature.verify(headers(SPEC_SIGNATURE), SPEC_BODY, SPEC_SECRET,
                SIGNED_AT.plusSeconds(301)))
                .isInstanceOf(StandardWebhooksSignature.Rejected.class).hasMessageContaining("timestamp");
    }

    @Test
    void refusesATimestampInTheFuture() {
        assertThatThrownBy(() -> StandardWebhooksSignature.verify(headers(SPEC_SIGNATURE), SPEC_BODY, SPEC_SECRET,
                SIGNED_AT.minusSeconds(301)))
                .isInstanceOf(StandardWebhooksSignature.Rejected.class).hasMessageContaining("timestamp");
    }

    @Test
    void refusesATimestampThatIsNotANumber() {
        Map<String, String> headers = headers(SPEC_SIGNATURE);
        headers.put(TIMESTAMP, "2021-02-25T15:02:10Z");

        assertThatThrownBy(() -> StandardWebhooksSignature.verify(headers, SPEC_BODY, SPEC_SECRET, SIGNED_AT))
                .isInstanceOf(StandardWebhooksSignature.Rejected.class).hasMessageContaining("timestamp");
    }

    @Test
    void acceptsWhenAnyOfSeveralSignaturesMatches() {
        String other = StandardWebhooksSignature.sign(SPEC_ID, SPEC_TIMESTAMP, SPEC_BODY, OTHER_SECRET);

        assertThatCode(() -> StandardWebhooksSignature.verify(headers(other + " " + SPEC_SIGNATURE), SPEC_BODY,
                SPEC_SECRET, SIGNED_AT)).doesNotThrowAnyException();
        assertThatCode(() -> StandardWebhooksSignature.verify(headers("v2,abc " + SPEC_SIGNATURE + " " + other), SPEC_BODY,
                SPEC_SECRET, SIGNED_AT)).doesNotThrowAnyException();
    }

    @Test
    void refusesTheRightValueUnderAnotherVersion() {
        String unversioned = SPEC_SIGNATURE.substring("v1,".length());

        assertThatThrownBy(() -> StandardWebhooksSignature.verify(headers("v2," + unversioned), SPEC_BODY, SPEC_SECRET,
                SIGNED_AT)).isInstanceOf(StandardWebhooksSignature.Rejected.class);
        assertThatThrownBy(() -> StandardWebhooksSignature.verify(headers(unversioned), SPEC_BODY, SPEC_SECRET,
                SIGNED_AT)).isInstanceOf(StandardWebhooksSignature.Rejected.class);
    }

    @Test
    void refusesMissingHeaders() {
        for (String name : new String[] {ID, TIMESTAMP, SIGNATURE}) {
            Map<String, String> headers = headers(SPEC_SIGNATURE);
            headers.remove(name);
            assertThatThrownBy(() -> StandardWebhooksSignature.verify(headers, SPEC_BODY, SPEC_SECRET, SIGNED_AT))
                    .isInstanceOf(StandardWebhooksSignature.Rejected.class).hasMessage("missing " + name + " header");
        }
    }

    @Test
    void recognisesWellFormedSecrets() {
        assertThat(StandardWebhooksSignature.isWellFormed(SPEC_SECRET)).isTrue();
        assertThat(StandardWebhooksSignature.isWellFormed("MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")).isFalse();
        assertThat(StandardWebhooksSignature.isWellFormed("whsec_not base64!")).isFalse();
        assertThat(StandardWebhooksSignature.isWellFormed("whsec_")).isFalse();
        assertThat(StandardWebhooksSignature.isWellFormed(null)).isFalse();
    }
}
