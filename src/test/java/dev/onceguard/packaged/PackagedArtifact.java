package dev.onceguard.packaged;

import dev.onceguard.TestTokens;
import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import io.smallrye.config.PropertiesConfigSource;
import io.smallrye.config.SmallRyeConfig;
import io.smallrye.config.SmallRyeConfigBuilder;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.Map;

import static java.util.Map.entry;

/**
 * How the packaged artifact (the jar, or the native executable with -Pnative) is run for the integration tests: as a
 * deployment runs it, in the prod profile with a datasource URL, here the test database emptied first, and with the
 * settings a deployment would give it: the test profile's token key and issuer, one console admin, the sandbox on and
 * a catalog file of its own. Quarkus hands these to the launched process as system properties.
 */
public class PackagedArtifact implements QuarkusTestResourceLifecycleManager {

    static final String ADMIN = "it-admin";
    static final String ADMIN_PASSWORD = "it-admin-password-1";
    static final String CATALOG = "packaged/catalog.json";

    @Override
    public Map<String, String> start() {
        return Map.ofEntries(
                entry("quarkus.datasource.jdbc.url", testDatabase()),
                entry("quarkus.flyway.clean-at-start", "true"),
                entry("smallrye.jwt.verify.key.location", resource("jwt/test-hs256.jwk")),
                entry("smallrye.jwt.verify.algorithm", "HS256"),
                entry("mp.jwt.verify.issuer", TestTokens.ISSUER),
                entry("mp.jwt.verify.audiences", TestTokens.AUDIENCE),
                entry("quarkus.security.users.embedded.users." + ADMIN, ADMIN_PASSWORD),
                entry("quarkus.security.users.embedded.roles." + ADMIN, "admin"),
                entry("onceguard.sandbox.enabled", "true"),
                entry("onceguard.catalog.file", resource(CATALOG)));
    }

    @Override
    public void stop() {
        // the artifact's process is stopped by Quarkus; the database is emptied by the next start that needs it
    }

    /** The test profile's database: application.properties, or _TEST_QUARKUS_DATASOURCE_JDBC_URL on this machine. */
    private static String testDatabase() {
        try {
            SmallRyeConfig config = new SmallRyeConfigBuilder().addDefaultSources().addDefaultInterceptors()
                    .withProfile("test")
                    .withSources(new PropertiesConfigSource(
                            PackagedArtifact.class.getClassLoader().getResource("application.properties"), 250))
                    .build();
            return config.getValue("quarkus.datasource.jdbc.url", String.class);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String resource(String name) {
        try {
            return Path.of(PackagedArtifact.class.getClassLoader().getResource(name).toURI()).toString();
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }
}
