package dev.onceguard.sandbox;

import dev.onceguard.platform.SqlRows;
import dev.onceguard.platform.StandardWebhooksSignature;
import io.quarkus.narayana.jta.QuarkusTransaction;
import jakarta.enterprise.context.ApplicationScoped;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.logging.Logger;

import java.security.SecureRandom;
import java.util.Base64;
import java.util.Optional;

/**
 * The {@code whsec_…} secret of sandbox webhooks, read by the sandbox's sender and the service's verifier alike:
 * {@code onceguard.webhooks.sandbox.secret} when configured; otherwise one generated on first use and kept in
 * {@code sandbox_settings}, so it survives restarts and every replica converges on the first one written
 * (INSERT … ON CONFLICT DO NOTHING, then read). The value is never logged.
 */
@ApplicationScoped
public class SandboxWebhookSecret {

    static final String SETTING = "webhook_secret";
    private static final Logger LOG = Logger.getLogger(SandboxWebhookSecret.class);

    private final Optional<String> configured;
    private final SqlRows sql;
    private volatile String secret;

    public SandboxWebhookSecret(@ConfigProperty(name = "onceguard.webhooks.sandbox.secret") Optional<String> configured,
                                SqlRows sql) {
        this.configured = configured.filter(s -> !s.isBlank());
        this.sql = sql;
    }

    public String value() {
        String current = secret;
        if (current == null) {
            synchronized (this) {
                if (secret == null) {
                    secret = load();
                }
                current = secret;
            }
        }
        return current;
    }

    private String load() {
        String value = configured.orElseGet(this::generatedOnce);
        if (!StandardWebhooksSignature.isWellFormed(value)) {
            throw new IllegalStateException("onceguard.webhooks.sandbox.secret must have the form whsec_<base64>");
        }
        return value;
    }

    private String generatedOnce() {
        byte[] key = new byte[32];
        new SecureRandom().nextBytes(key);
        String candidate = StandardWebhooksSignature.SECRET_PREFIX + Base64.getEncoder().encodeToString(key);
        return QuarkusTransaction.requiringNew().call(() -> {
            int inserted = sql.update("INSERT INTO sandbox_settings (name, value) VALUES (?, ?)"
                    + " ON CONFLICT (name) DO NOTHING", SETTING, candidate);
            if (inserted == 1) {
                LOG.info("generated the sandbox webhook secret for this install (kept in sandbox_settings)");
            }
            return sql.list("SELECT value FROM sandbox_settings WHERE name = ?", row -> row.getString("value"), SETTING)
                    .get(0);
        });
    }

    @Override
    public String toString() {
        return "SandboxWebhookSecret[<redacted>]";
    }
}
