package dev.onceguard.platform.embedded;

import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static java.nio.file.attribute.PosixFilePermission.OWNER_READ;
import static java.nio.file.attribute.PosixFilePermission.OWNER_WRITE;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The service in embedded mode, set up as the launcher does it (embedded database and demo access in a fresh data
 * folder), with its log written to a file: the banner's curl line, pasted into a shell, creates an order.
 */
@QuarkusTest
@TestProfile(EmbeddedModeTest.Embedded.class)
class EmbeddedModeTest {

    private static final Pattern CURL_LINE = Pattern.compile("(?m)^curl .*$");

    public static class Embedded implements QuarkusTestProfile {
        @Override
        public List<TestResourceEntry> testResources() {
            return List.of(new TestResourceEntry(InFreshDataFolder.class));
        }
    }

    public static class InFreshDataFolder implements QuarkusTestResourceLifecycleManager {

        private Path folder;
        private EmbeddedMode embedded;

        @Override
        public Map<String, String> start() {
            try {
                folder = Files.createTempDirectory("onceguard-embedded-test");
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            embedded = EmbeddedMode.start(folder.resolve("data"));
            Map<String, String> config = new HashMap<>(embedded.settings());
            config.put("quarkus.log.file.enabled", "true");
            config.put("quarkus.log.file.path", folder.resolve("service.log").toString());
            return config;
        }

        @Override
        public void stop() {
            embedded.close();
            try (Stream<Path> paths = Files.walk(folder)) {
                paths.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    @ConfigProperty(name = "quarkus.log.file.path")
    Path serviceLog;

    @ConfigProperty(name = EmbeddedMode.DATA_FOLDER)
    Path dataFolder;

    @Test
    void theBannersCurlCreatesAnOrderAndRunTwiceReplaysIt() throws Exception {
        String curl = bannerCurlLine();

        String first = runInShell(curl);
        String second = runInShell(curl);

        assertThat(first).startsWith("HTTP/1.1 201").doesNotContain("Idempotent-Replayed");
        assertThat(second).startsWith("HTTP/1.1 201").contains("Idempotent-Replayed: true");
        assertThat(body(second)).isEqualTo(body(first));
    }

    @Test
    void theAdminPasswordIsInItsFileAndNeverInTheLog() throws Exception {
        bannerCurlLine();
        Path adminLogin = dataFolder.resolve("console-admin.properties");
        Properties login = new Properties();
        try (var reader = Files.newBufferedReader(adminLogin)) {
            login.load(reader);
        }

        assertThat(login.getProperty("password")).hasSizeGreaterThanOrEqualTo(20);
        assertThat(Files.getPosixFilePermissions(adminLogin)).containsExactlyInAnyOrder(OWNER_READ, OWNER_WRITE);
        assertThat(Files.readString(serviceLog)).contains(adminLogin.toString())
                .doesNotContain(login.getProperty("password"));
    }

    // The banner is printed once the HTTP server listens, asynchronously, so it may trail the test's start.
    private String bannerCurlLine() throws Exception {
        for (int attempt = 0; attempt < 100; attempt++) {
            Matcher curl = CURL_LINE.matcher(Files.exists(serviceLog) ? Files.readString(serviceLog) : "");
            if (curl.find()) {
                return curl.group();
            }
            Thread.sleep(100);
        }
        throw new AssertionError("no curl line in " + serviceLog);
    }

    private static String runInShell(String command) throws Exception {
        Process process = new ProcessBuilder("sh", "-c", command + " --silent --show-error").start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        String errors = new String(process.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor()).as("curl failed: %s", errors).isZero();
        return output;
    }

    private static String body(String response) {
        return response.substring(response.indexOf("\r\n\r\n") + 4);
    }
}
