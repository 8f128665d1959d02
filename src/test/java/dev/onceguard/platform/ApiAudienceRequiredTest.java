package dev.onceguard.platform;

import io.quarkus.runtime.LaunchMode;
import org.junit.jupiter.api.Test;

import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** In production the service does not start without the audience its bearer tokens must name. */
class ApiAudienceRequiredTest {

    @Test
    void productionWithoutAnAudienceDoesNotStartAndSaysWhichSettingOnOneLine() {
        for (Optional<String> missing : java.util.List.of(Optional.<String>empty(), Optional.of(" "))) {
            assertThatThrownBy(() -> ApiAudienceRequired.check(LaunchMode.NORMAL, missing))
                    .hasMessageStartingWith("mp.jwt.verify.audiences is not set")
                    .satisfies(refusal -> assertThat(refusal.getMessage()).doesNotContain("\n"))
                    .satisfies(refusal -> assertThat(refusal.getStackTrace()).isEmpty());
        }
        assertThatCode(() -> ApiAudienceRequired.check(LaunchMode.NORMAL, Optional.of("https://shop.example/api")))
                .doesNotThrowAnyException();
        assertThatCode(() -> ApiAudienceRequired.check(LaunchMode.TEST, Optional.empty())).doesNotThrowAnyException();
    }
}
