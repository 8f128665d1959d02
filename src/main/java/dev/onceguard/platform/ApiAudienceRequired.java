package dev.onceguard.platform;

import io.quarkus.runtime.LaunchMode;
import io.quarkus.runtime.StartupEvent;
import jakarta.annotation.Priority;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Singleton;
import org.eclipse.microprofile.config.ConfigProvider;

import java.util.Optional;

/**
 * In production the API trusts only bearer tokens minted for it: without {@code mp.jwt.verify.audiences} a token the
 * identity provider minted for any other service (its {@code aud} naming that service, or no {@code aud} at all) would
 * be accepted, so the service refuses to start without it. Dev and tests sign their own tokens and may leave it out.
 */
@Singleton
public class ApiAudienceRequired {

    static final String PROPERTY = "mp.jwt.verify.audiences";

    void onStart(@Observes @Priority(1) StartupEvent start) {
        check(LaunchMode.current(), ConfigProvider.getConfig().getOptionalValue(PROPERTY, String.class));
    }

    static void check(LaunchMode mode, Optional<String> audiences) {
        if (!mode.isDevOrTest() && audiences.map(String::isBlank).orElse(true)) {
            throw new AudienceMissing();
        }
    }

    /** The reason the service does not start, on one line and without a stack trace. */
    static final class AudienceMissing extends IllegalStateException {

        AudienceMissing() {
            super(PROPERTY + " is not set: the API would accept bearer tokens minted for any other service; set it"
                    + " (MP_JWT_VERIFY_AUDIENCES, the chart's jwt.audiences) to the aud its tokens carry", null);
        }

        @Override
        public synchronized Throwable fillInStackTrace() {
            return this;
        }
    }
}
