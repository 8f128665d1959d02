package dev.onceguard.console;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

import java.time.Duration;

/** The console's settings ({@code onceguard.console.*}, see docs/configuration.md). */
@ConfigMapping(prefix = "onceguard.console")
public interface ConsoleConfig {

    /** Read where it is used, by {@link CustomerCharges}; declared so that the mapping knows every console setting. */
    Duration doubleSubmissionWindow();

    Session session();

    interface Session {

        /** How long a form sign-in lasts at most, however active its user: past it the user signs in again. */
        @WithDefault("8h")
        Duration absoluteLifetime();
    }

    SignIn signIn();

    /** Failed sign-ins (form and HTTP Basic) are throttled per user name and per client address. */
    interface SignIn {

        /** Failures of one user name before the next attempt has to wait. */
        @WithDefault("5")
        int freeFailuresPerUser();

        /** Failures from one client address (all user names) before the next attempt has to wait. */
        @WithDefault("20")
        int freeFailuresPerAddress();

        /** The wait after the last free failure; it doubles with each further failure. */
        @WithDefault("2s")
        Duration firstDelay();

        /** The longest wait: nobody is ever locked out for longer than this after their last failure. */
        @WithDefault("15m")
        Duration maxDelay();

        /** A user name or address without a failure for this long starts again with its free failures. */
        @WithDefault("1h")
        Duration forgetAfter();
    }
}
