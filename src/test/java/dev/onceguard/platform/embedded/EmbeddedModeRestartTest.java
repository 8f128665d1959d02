package dev.onceguard.platform.embedded;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Embedded mode as the launcher starts it, without Quarkus, as whatever user runs the tests (root in CI, where
 * PostgreSQL then runs under {@code unshare -U}). Both tests share one data folder, as restarts of one install do.
 */
class EmbeddedModeRestartTest {

    @TempDir
    static Path dataFolder;

    @Test
    void aRestartOnTheSameFolderFindsTheDataAndTheDemoKeyAgain() throws Exception {
        String key;
        try (EmbeddedMode first = EmbeddedMode.start(dataFolder, false)) {
            execute(first, "CREATE TABLE kept (note text)");
            execute(first, "INSERT INTO kept VALUES ('written before the restart')");
            key = Files.readString(signingKey(first));
        }
        try (EmbeddedMode second = EmbeddedMode.start(dataFolder, false)) {
            assertThat(queryOne(second, "SELECT note FROM kept")).isEqualTo("written before the restart");
            assertThat(Files.readString(signingKey(second))).isEqualTo(key);
        }
    }

    @Test
    void aSecondStartOnAFolderInUseIsRefusedAndTheFirstKeepsRunning() throws Exception {
        try (EmbeddedMode first = EmbeddedMode.start(dataFolder, false)) {
            assertThatThrownBy(() -> EmbeddedMode.start(dataFolder, false))
                    .isInstanceOf(EmbeddedModeException.class)
                    .hasMessageContaining("is in use by another onceguard process");
            assertThat(queryOne(first, "SELECT 'still answering'")).isEqualTo("still answering");
        }
    }

    private static Path signingKey(EmbeddedMode embedded) {
        return Path.of(embedded.settings().get("smallrye.jwt.verify.key.location"));
    }

    private static Connection connect(EmbeddedMode embedded) throws SQLException {
        return DriverManager.getConnection(embedded.settings().get("quarkus.datasource.jdbc.url"),
                embedded.settings().get("quarkus.datasource.username"), null);
    }

    private static void execute(EmbeddedMode embedded, String sql) throws SQLException {
        try (Connection connection = connect(embedded); Statement statement = connection.createStatement()) {
            statement.execute(sql);
        }
    }

    private static String queryOne(EmbeddedMode embedded, String sql) throws SQLException {
        try (Connection connection = connect(embedded); Statement statement = connection.createStatement();
             ResultSet rows = statement.executeQuery(sql)) {
            assertThat(rows.next()).isTrue();
            return rows.getString(1);
        }
    }
}
