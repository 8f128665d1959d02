package dev.onceguard.webhook;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.agroal.api.AgroalDataSource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;

import static dev.onceguard.Database.execute;
import static dev.onceguard.Database.single;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The migration that hides the secrets of inbox events stored before the inbox hid them: run on rows written as they
 * were then, it leaves what the inbox's own rule ({@link SecretFields}) would have stored, and nothing else changes.
 */
@QuarkusTest
class WebhookSecretsScrubMigrationTest {

    private static final String MIGRATION = "db/migration/V18__scrub_stored_webhook_secrets.sql";

    @Inject
    AgroalDataSource db;

    @Inject
    ObjectMapper json;

    private String storedAsBefore(String payload) {
        String eventId = "evt_" + UUID.randomUUID();
        execute(db, """
                INSERT INTO webhook_inbox (provider, event_id, event_type, provider_payment_id, payload, status,
                    received_at, last_delivered_at, processed_at)
                VALUES ('stripe', ?, 'payment_intent.succeeded', 'pi_3Old', CAST(? AS jsonb), 'PROCESSED',
                        now() - interval '40 days', now() - interval '40 days', now() - interval '40 days')""",
                eventId, payload);
        return eventId;
    }

    private String row(String eventId) {
        return single(db, String.class, """
                SELECT event_type || ' ' || status || ' ' || provider_payment_id || ' ' || CAST(payload AS text)
                  FROM webhook_inbox WHERE provider = 'stripe' AND event_id = ?""", eventId);
    }

    private JsonNode payload(String eventId) throws IOException {
        String row = row(eventId);
        return json.readTree(row.substring(row.indexOf('{')));
    }

    private void runMigration() throws IOException, SQLException {
        String sql;
        try (InputStream in = getClass().getClassLoader().getResourceAsStream(MIGRATION)) {
            assertThat(in).as(MIGRATION).isNotNull();
            sql = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        try (Connection connection = db.getConnection(); Statement statement = connection.createStatement()) {
            statement.execute(sql);
        }
    }

    @Test
    void storedSecretsAreHiddenAsTheInboxHidesThemAndNothingElseChanges() throws Exception {
        String withSecrets = """
                {"id":"evt_old","type":"payment_intent.succeeded","data":{"object":{"id":"pi_3Old",
                 "object":"payment_intent","amount":150000,"currency":"rub","client_secret":"pi_3Old_secret_abc123",
                 "metadata":{"payment_id":"pay_old"},"last_payment_error":null,"Card_Token":null,
                 "charges":{"data":[{"id":"ch_1","payment_method_details":{"card":{"last4":"4242"}},
                                     "Signature":"sig_1","refunds":[]}]}}},
                 "livemode":false,"request":{"id":"req_1","idempotency_key":"onceguard-pay_old"}}""";
        String without = """
                {"id":"evt_plain","type":"payment_intent.succeeded","data":{"object":{"id":"pi_3Old","amount":150000}}}""";
        String alreadyHidden = """
                {"id":"evt_new","data":{"object":{"id":"pi_3Old","client_secret":"[not shown]"}}}""";
        String secretEvent = storedAsBefore(withSecrets);
        String plainEvent = storedAsBefore(without);
        String hiddenEvent = storedAsBefore(alreadyHidden);
        String plainBefore = row(plainEvent);
        String hiddenBefore = row(hiddenEvent);
        JsonNode expected = json.readTree(withSecrets);
        SecretFields.hide(expected);

        runMigration();

        String scrubbed = row(secretEvent);
        assertThat(scrubbed).startsWith("payment_intent.succeeded PROCESSED pi_3Old {")
                .doesNotContain("pi_3Old_secret_abc123").doesNotContain("sig_1");
        JsonNode payload = payload(secretEvent);
        assertThat(payload).isEqualTo(expected);
        JsonNode intent = payload.at("/data/object");
        assertThat(intent.get("client_secret").asText()).isEqualTo(SecretFields.HIDDEN);
        assertThat(intent.at("/charges/data/0/Signature").asText()).isEqualTo(SecretFields.HIDDEN);
        assertThat(intent.get("Card_Token").isNull()).isTrue();
        assertThat(intent.get("amount").asLong()).isEqualTo(150000);
        assertThat(intent.at("/metadata/payment_id").asText()).isEqualTo("pay_old");
        assertThat(intent.at("/charges/data/0/payment_method_details/card/last4").asText()).isEqualTo("4242");
        assertThat(payload.at("/request/idempotency_key").asText()).isEqualTo("onceguard-pay_old");
        assertThat(row(plainEvent)).isEqualTo(plainBefore);
        assertThat(row(hiddenEvent)).isEqualTo(hiddenBefore);

        runMigration();

        assertThat(payload(secretEvent)).isEqualTo(expected);
    }
}
