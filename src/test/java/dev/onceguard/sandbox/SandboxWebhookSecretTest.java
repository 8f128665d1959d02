package dev.onceguard.sandbox;

import dev.onceguard.platform.SqlRows;
import dev.onceguard.platform.StandardWebhooksSignature;
import io.agroal.api.AgroalDataSource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

import java.util.Optional;

import static dev.onceguard.Database.count;
import static dev.onceguard.Database.execute;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The signing secret when none is configured: generated once per install and kept in the database. */
@QuarkusTest
class SandboxWebhookSecretTest {

    @Inject
    SqlRows sql;

    @Inject
    AgroalDataSource db;

    @Test
    void anUnconfiguredSecretIsGeneratedOnceAndSurvivesARestart() {
        execute(db, "DELETE FROM sandbox_settings WHERE name = ?", SandboxWebhookSecret.SETTING);

        String generated = new SandboxWebhookSecret(Optional.empty(), sql).value();
        String afterRestart = new SandboxWebhookSecret(Optional.of(" "), sql).value();

        assertThat(StandardWebhooksSignature.isWellFormed(generated)).isTrue();
        assertThat(generated).startsWith("whsec_").hasSizeGreaterThan("whsec_".length() + 40);
        assertThat(afterRestart).isEqualTo(generated);
        assertThat(count(db, "SELECT count(*) FROM sandbox_settings WHERE name = ? AND value = ?",
                SandboxWebhookSecret.SETTING, generated)).isEqualTo(1);
    }

    @Test
    void aConfiguredSecretWinsAndMustBeWellFormed() {
        String configured = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";

        assertThat(new SandboxWebhookSecret(Optional.of(configured), sql).value()).isEqualTo(configured);
        assertThatThrownBy(() -> new SandboxWebhookSecret(Optional.of("not-a-secret"), sql).value())
                .isInstanceOf(IllegalStateException.class).hasMessageNotContaining("not-a-secret");
    }
}
