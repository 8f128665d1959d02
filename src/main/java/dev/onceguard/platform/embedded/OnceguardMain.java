package dev.onceguard.platform.embedded;

import io.quarkus.runtime.Application;
import io.quarkus.runtime.Quarkus;
import io.quarkus.runtime.annotations.QuarkusMain;
import io.quarkus.runtime.configuration.ConfigUtils;
import io.smallrye.config.SmallRyeConfig;

import java.nio.file.Path;
import java.util.Optional;

/**
 * The service's entry point: with no datasource URL configured it first starts embedded mode and hands its
 * settings to Quarkus as system properties; otherwise it only starts Quarkus. Tests and the build never run it.
 */
@QuarkusMain
public final class OnceguardMain {

    /** {@code demo-token <user id>}: prints a bearer token for that user, signed with embedded mode's demo key. */
    static final String DEMO_TOKEN = "demo-token";

    private OnceguardMain() {
    }

    static int printDemoToken(SmallRyeConfig config, String... args) {
        if (args.length != 2 || args[1].isBlank()) {
            System.err.println("usage: java -jar <the jar> " + DEMO_TOKEN + " <user id>");
            return 2;
        }
        Path folder = Path.of(config.getOptionalValue(EmbeddedMode.DATA_FOLDER, String.class).orElse("data"));
        DemoAccess access = DemoAccess.in(folder);
        if (!access.hasSigningKey()) {
            System.err.println("No demo signing key in " + folder.toAbsolutePath() + ": start onceguard in embedded "
                    + "mode once (it creates the key), or set " + EmbeddedMode.DATA_FOLDER + " to its data folder.");
            return 1;
        }
        System.out.println(access.userToken(args[1]));
        return 0;
    }

    public static void main(String... args) {
        // The configuration Quarkus will read (system properties, environment, application.properties, profiles),
        // read before it boots; it is not registered anywhere.
        SmallRyeConfig config = ConfigUtils.emptyConfigBuilder().build();
        if (args.length > 0 && DEMO_TOKEN.equals(args[0])) {
            System.exit(printDemoToken(config, args));
            return;
        }
        Optional<EmbeddedMode> embedded;
        try {
            embedded = EmbeddedMode.startIfWanted(config);
        } catch (EmbeddedModeException e) {
            System.err.println("onceguard cannot start: " + e.getMessage());
            System.exit(1);
            return;
        }
        embedded.ifPresent(mode -> {
            mode.settings().forEach(System::setProperty);
            Runtime.getRuntime().addShutdownHook(new Thread(() -> stopAfterQuarkus(mode), "embedded-mode-stop"));
        });
        Quarkus.run(args);
    }

    // On SIGTERM/SIGINT Quarkus stops from its own shutdown hook, which runs alongside this one; waiting for it lets
    // the connection pool close before the database goes away.
    private static void stopAfterQuarkus(EmbeddedMode embedded) {
        try {
            Application quarkus = Application.currentApplication();
            if (quarkus != null) {
                quarkus.stop();
            }
        } finally {
            embedded.close();
        }
    }
}
