package dev.onceguard.platform.embedded;

import org.eclipse.microprofile.config.Config;
import org.jboss.logging.Logger;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The self-contained trial setup, used whenever no datasource URL is configured: an embedded PostgreSQL and the
 * demo access, all kept in one data folder that one process at a time may use.
 */
public final class EmbeddedMode implements AutoCloseable {

    /** {@code true} when the launcher started embedded mode; set by it, never configured by hand. */
    static final String ACTIVE = "onceguard.embedded.active";
    static final String DATA_FOLDER = "onceguard.embedded.data-folder";
    static final String JDBC_URL = "quarkus.datasource.jdbc.url";
    /** {@code true} opens embedded mode to every network interface; by default it listens on 127.0.0.1 only. */
    static final String ALL_INTERFACES = "onceguard.embedded.all-interfaces";
    static final String HTTP_HOST = "quarkus.http.host";

    private static final Logger LOG = Logger.getLogger(EmbeddedMode.class);

    private final FileChannel lockFile;
    private final EmbeddedDatabase database;
    private final Map<String, String> settings;

    private EmbeddedMode(FileChannel lockFile, EmbeddedDatabase database, Map<String, String> settings) {
        this.lockFile = lockFile;
        this.database = database;
        this.settings = settings;
    }

    /**
     * Starts embedded mode in the configured data folder when no datasource URL is configured; with a URL it does
     * nothing at all: no folder, no database, no key, no console user.
     */
    public static Optional<EmbeddedMode> startIfWanted(Config config) {
        if (config.getOptionalValue(JDBC_URL, String.class).isPresent()) {
            return Optional.empty();
        }
        return Optional.of(start(config.getOptionalValue(DATA_FOLDER, Path.class).orElse(Path.of("data"))
                .toAbsolutePath().normalize(), config.getOptionalValue(ALL_INTERFACES, Boolean.class).orElse(false)));
    }

    /**
     * Locks the folder, starts the database in it and prepares the demo access there. The HTTP server listens on
     * 127.0.0.1 unless {@code allInterfaces}: the sandbox lets anyone list and charge any order and the console has a
     * generated admin login, which nobody else on the network should reach by default.
     */
    public static EmbeddedMode start(Path dataFolder, boolean allInterfaces) {
        FileChannel lockFile = lock(dataFolder);
        EmbeddedDatabase database = null;
        try {
            LOG.infof("No datasource URL configured: starting the embedded PostgreSQL in %s", dataFolder);
            database = EmbeddedDatabase.start(dataFolder);
            DemoAccess access = DemoAccess.prepare(dataFolder);
            Map<String, String> settings = new HashMap<>(access.verificationSettings());
            settings.putAll(access.consoleSettings());
            settings.put("onceguard.sandbox.enabled", "true");
            settings.put("onceguard.catalog.demo", "true");
            settings.put(JDBC_URL, database.jdbcUrl());
            settings.put("quarkus.datasource.username", EmbeddedDatabase.USERNAME);
            settings.put(DATA_FOLDER, dataFolder.toString());
            settings.put(ACTIVE, "true");
            settings.put(HTTP_HOST, allInterfaces ? "0.0.0.0" : "127.0.0.1");
            // A person reads this console, and the banner is for them: plain lines, not the cluster's JSON.
            settings.put("quarkus.log.console.json.enabled", "false");
            settings.put("quarkus.log.file.json.enabled", "false");
            return new EmbeddedMode(lockFile, database, Map.copyOf(settings));
        } catch (RuntimeException e) {
            if (database != null) {
                database.close();
            }
            closeQuietly(lockFile);
            throw e instanceof EmbeddedModeException ? e : new EmbeddedModeException(e.getMessage(), e);
        }
    }

    /** The configuration that points Quarkus at the embedded database and the demo key. */
    public Map<String, String> settings() {
        return settings;
    }

    @Override
    public void close() {
        try {
            database.close();
        } finally {
            closeQuietly(lockFile);
        }
    }

    // The lock goes with the process: a killed process cannot leave the folder locked.
    private static FileChannel lock(Path dataFolder) {
        Path lockPath = dataFolder.resolve("onceguard.lock");
        FileChannel channel;
        try {
            if (!Files.isDirectory(dataFolder)) {
                // Owner only: besides the key and the password, it holds the binaries folder, which the library
                // makes world-writable because it was meant as a shared cache in /tmp.
                Files.createDirectories(dataFolder,
                        PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
            }
            channel = FileChannel.open(lockPath, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        } catch (IOException e) {
            throw new EmbeddedModeException("Cannot use the data folder " + dataFolder + ": " + e, e);
        }
        FileLock lock;
        try {
            lock = channel.tryLock();
        } catch (OverlappingFileLockException e) {
            lock = null; // held by this very process
        } catch (IOException e) {
            closeQuietly(channel);
            throw new EmbeddedModeException("Cannot lock " + lockPath + ": " + e, e);
        }
        if (lock == null) {
            closeQuietly(channel);
            throw new EmbeddedModeException("The data folder " + dataFolder + " is in use by another onceguard "
                    + "process (it holds " + lockPath + "). Stop that one first, or give this one a folder of its own "
                    + "with ONCEGUARD_EMBEDDED_DATA_FOLDER, or a database with QUARKUS_DATASOURCE_JDBC_URL.");
        }
        return channel;
    }

    private static void closeQuietly(FileChannel channel) {
        try {
            channel.close();
        } catch (IOException e) {
            LOG.debugf(e, "Closing %s", channel);
        }
    }
}
