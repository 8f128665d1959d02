package dev.onceguard.packaged;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The packaged artifact given a catalog file with an invalid product: it does not start, and says which file and
 * which product. Run as a deployment would run it, in a process of its own, on a port of its own.
 */
class PackagedCatalogIT {

    private static final String PORT = "18132";

    @TempDir
    Path folder;

    @Test
    void anInvalidCatalogFileStopsTheStartNamingTheFileAndTheProduct() throws Exception {
        Path catalog = Files.writeString(folder.resolve("catalog.json"), """
                [{"productId": "it-lamp", "name": "Desk lamp", "kind": "SERVICE", "price": "45.50", "currency": "EUR", "available": 3}]""");
        Map<String, String> settings = new HashMap<>(new PackagedArtifact().start());
        settings.put("quarkus.flyway.clean-at-start", "false");
        settings.put("quarkus.http.port", PORT);
        settings.put("onceguard.catalog.file", catalog.toString());
        // plain lines, so that the message is compared as a person reads it (JSON would escape its quotes)
        settings.put("quarkus.log.console.json.enabled", "false");

        // to a file, not a pipe: a start that fails while the scheduler's first ticks run logs tens of kilobytes, and a
        // pipe nobody reads until the process ends would stop it mid-write
        Path log = folder.resolve("service.log");
        Process service = new ProcessBuilder(command(settings)).redirectErrorStream(true).redirectOutput(log.toFile())
                .start();
        try {
            assertThat(service.waitFor(3, TimeUnit.MINUTES)).as("the service stops by itself").isTrue();
        } finally {
            service.destroyForcibly();
        }
        String output = Files.readString(log, StandardCharsets.UTF_8);

        assertThat(service.exitValue()).as(output).isNotZero();
        assertThat(output).contains("Catalog file " + catalog + ": product \"it-lamp\" (entry 1) has kind \"SERVICE\"");
        assertThat(output).doesNotContain("Listening on");
    }

    /** The artifact that was built, as target/quarkus-artifact.properties names it: the jar or the native executable. */
    private static List<String> command(Map<String, String> settings) throws IOException {
        Properties artifact = new Properties();
        try (InputStream in = Files.newInputStream(Path.of("target", "quarkus-artifact.properties"))) {
            artifact.load(in);
        }
        Path path = Path.of("target").resolve(artifact.getProperty("path")).toAbsolutePath();
        boolean nativeExecutable = artifact.getProperty("type").equals("native");
        List<String> command = new ArrayList<>();
        command.add(nativeExecutable ? path.toString() : Path.of(System.getProperty("java.home"), "bin", "java").toString());
        settings.forEach((name, value) -> command.add("-D" + name + "=" + value));
        if (!nativeExecutable) {
            command.add("-jar");
            command.add(path.toString());
        }
        return command;
    }
}
