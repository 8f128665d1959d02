package dev.onceguard.operations;

import org.junit.jupiter.api.Assumptions;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A command-line tool a test runs (promtool, npx). Where the machine lacks it the test is skipped, with a banner on
 * stderr and the reason in the report, never passed silently.
 */
record ExternalTool(String command, String install) {

    /** The exit status and everything the tool printed. */
    record Result(int exitCode, String output) {
    }

    boolean installed() {
        String path = System.getenv().getOrDefault("PATH", "");
        return Arrays.stream(path.split(File.pathSeparator)).map(dir -> Path.of(dir, command)).anyMatch(Files::isExecutable);
    }

    void assumeInstalled(String what) {
        if (!installed()) {
            String reason = what + " SKIPPED: `" + command + "` is not on the PATH; " + install + " (.ci/run does)";
            System.err.println("\n" + "#".repeat(reason.length() + 4) + "\n# " + reason + " #\n" + "#".repeat(reason.length() + 4));
            Assumptions.assumeTrue(false, reason);
        }
    }

    Result run(Path directory, long timeoutSeconds, String... arguments) {
        return run(directory, null, timeoutSeconds, arguments);
    }

    /** Runs the tool with {@code input} (a file) on its standard input, or nothing when it is null. */
    Result run(Path directory, Path input, long timeoutSeconds, String... arguments) {
        try {
            Path log = Files.createTempFile(command, ".log");
            List<String> line = new ArrayList<>(List.of(command));
            line.addAll(List.of(arguments));
            ProcessBuilder builder = new ProcessBuilder(line).directory(directory.toFile()).redirectErrorStream(true)
                    .redirectOutput(log.toFile());
            if (input != null) {
                builder.redirectInput(input.toFile());
            }
            Process process = builder.start();
            if (!process.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new AssertionError(command + " did not finish in " + timeoutSeconds + " s: " + Files.readString(log));
            }
            String output = Files.readString(log, StandardCharsets.UTF_8);
            Files.delete(log);
            return new Result(process.exitValue(), output);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
