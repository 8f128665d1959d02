package dev.onceguard.platform.embedded;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.Arrays;
import java.util.Properties;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Embedded mode names what is missing: another platform, or a build without the PostgreSQL binaries. */
class EmbeddedPlatformTest {

    private static final ClassLoader THIS_BUILD = EmbeddedDatabase.class.getClassLoader();

    @Test
    void startsOnLinuxX8664WhenTheBinariesAreInTheBuild() {
        assertThatCode(() -> EmbeddedDatabase.refuseUnsupported("Linux", "amd64", THIS_BUILD)).doesNotThrowAnyException();
    }

    @Test
    void aBuildWithoutTheBinariesSaysSoOnLinuxX8664() {
        ClassLoader withoutBinaries = new URLClassLoader(new URL[0], null);

        assertThatThrownBy(() -> EmbeddedDatabase.refuseUnsupported("Linux", "amd64", withoutBinaries))
                .isInstanceOf(EmbeddedModeException.class)
                .hasMessageContaining("does not contain the embedded PostgreSQL binaries")
                .hasMessageContaining("postgres-linux-x86_64.txz")
                .hasMessageContaining("QUARKUS_DATASOURCE_JDBC_URL")
                .hasMessageNotContaining("needs Linux");
    }

    @Test
    void anotherPlatformIsNamed() {
        assertThatThrownBy(() -> EmbeddedDatabase.refuseUnsupported("Mac OS X", "aarch64", THIS_BUILD))
                .isInstanceOf(EmbeddedModeException.class)
                .hasMessageContaining("needs Linux on x86-64, and this is Mac OS X on aarch64");
        assertThatThrownBy(() -> EmbeddedDatabase.refuseUnsupported("Linux", "aarch64", THIS_BUILD))
                .hasMessageContaining("needs Linux on x86-64, and this is Linux on aarch64");
    }

    @Test
    void theNativeBuildIncludesTheBinariesTheLibraryLooksFor() throws IOException {
        Properties application = new Properties();
        try (InputStream in = THIS_BUILD.getResourceAsStream("application.properties")) {
            application.load(in);
        }

        assertThat(Arrays.stream(application.getProperty("quarkus.native.resources.includes", "").split(","))
                .map(String::strip)).contains(EmbeddedDatabase.BINARIES);
        assertThat(THIS_BUILD.getResource(EmbeddedDatabase.BINARIES)).as("the binaries jar's resource").isNotNull();
    }
}
