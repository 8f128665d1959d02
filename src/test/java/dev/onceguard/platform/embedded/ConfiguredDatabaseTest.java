package dev.onceguard.platform.embedded;

import io.smallrye.config.PropertiesConfigSource;
import io.smallrye.config.SmallRyeConfig;
import io.smallrye.config.SmallRyeConfigBuilder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import java.util.stream.StreamSupport;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A deployment: the {@code prod} profile (the one {@code java -jar} runs) with a datasource URL. The launcher then
 * starts nothing embedded and generates nothing, and application.properties gives that profile no console user, no
 * key and the sandbox off. The configuration is application.properties and the URL as the environment would give
 * it, without this JVM's system properties, which earlier tests of the run may have left behind.
 */
class ConfiguredDatabaseTest {

    @TempDir
    Path workingDirectory;

    @Test
    void withADatasourceUrlTheProdProfileGeneratesNothingAndHasNoConsoleUsers() throws IOException {
        Path dataFolder = workingDirectory.resolve("data");
        SmallRyeConfig config = new SmallRyeConfigBuilder()
                .addDefaultInterceptors()
                .withProfile("prod")
                .withSources(new PropertiesConfigSource(
                        ConfiguredDatabaseTest.class.getClassLoader().getResource("application.properties"), 250))
                .withSources(new PropertiesConfigSource(Map.of(
                        "quarkus.datasource.jdbc.url", "jdbc:postgresql://db.example:5432/onceguard",
                        EmbeddedMode.DATA_FOLDER, dataFolder.toString()), "environment", 300))
                .build();

        assertThat(EmbeddedMode.startIfWanted(config)).isEmpty();

        assertThat(dataFolder).doesNotExist();
        assertThat(config.getProfiles()).containsExactly("prod");
        assertThat(config.getValue("quarkus.http.auth.form.login-page", String.class))
                .as("application.properties is read").isEqualTo("/console/login");
        assertThat(StreamSupport.stream(config.getPropertyNames().spliterator(), false))
                .noneMatch(name -> name.startsWith("quarkus.security.users.embedded.users.")
                        || name.startsWith("quarkus.security.users.embedded.roles."));
        assertThat(config.getOptionalValue("smallrye.jwt.verify.key.location", String.class)).isEmpty();
        assertThat(config.getValue("onceguard.sandbox.enabled", boolean.class)).isFalse();
        assertThat(config.getOptionalValue(EmbeddedMode.ACTIVE, Boolean.class)).isEmpty();
    }
}
