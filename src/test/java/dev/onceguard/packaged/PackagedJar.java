package dev.onceguard.packaged;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The packaged JVM jar started as a process of its own, for the tests that must kill it, restart it or start it
 * without its database: what {@code @QuarkusIntegrationTest} manages for the others cannot be SIGKILLed mid-request.
 */
public final class PackagedJar {

    public static final Path JAR = Path.of("target", "quarkus-app", "quarkus-run.jar");

    private PackagedJar() {
    }

    /** True when this build packaged a native executable and no jar (-Pnative): the process tests then do not run. */
    public static boolean onlyNativePackaged() {
        Path nativeRunner = Path.of(System.getProperty("native.image.path", "target/none"));
        return Files.notExists(JAR) && Files.exists(nativeRunner);
    }

    /** Starts the jar with these settings as system properties and these environment variables, output to {@code log}. */
    public static Process start(Path log, Map<String, String> properties, Map<String, String> environment)
            throws IOException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        properties.forEach((name, value) -> command.add("-D" + name + "=" + value));
        command.add("-jar");
        command.add(JAR.toString());
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
        builder.environment().putAll(environment);
        return builder.start();
    }

    public static int freePort() throws IOException {
        try (ServerSocket free = new ServerSocket(0)) {
            return free.getLocalPort();
        }
    }
}
