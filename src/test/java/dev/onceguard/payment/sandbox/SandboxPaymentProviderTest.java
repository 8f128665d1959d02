package dev.onceguard.payment.sandbox;

import java.io.UncheckedIOException;
import dev.onceguard.sandbox.SandboxWebhookSecret;
import dev.onceguard.platform.StandardWebhooksSignature;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.onceguard.payment.PaymentsConfig;
import dev.onceguard.payment.provider.CreatePayment;
import dev.onceguard.payment.provider.ProviderEvent;
import dev.onceguard.payment.provider.ProviderOutcomeUnknown;
import dev.onceguard.payment.provider.ProviderPayment;
import dev.onceguard.payment.provider.ProviderStatus;
import dev.onceguard.payment.provider.WebhookRejected;
import dev.onceguard.sandbox.SandboxConfig;
import io.agroal.api.AgroalDataSource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.lang.reflect.Proxy;
import java.math.BigDecimal;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.UUID;

import static dev.onceguard.Database.count;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The sandbox adapter against the running test application's sandbox, over HTTP. */
@QuarkusTest
class SandboxPaymentProviderTest {

    @Inject
    SandboxPaymentProvider provider;

    @Inject
    SandboxConfig sandboxConfig;

    @Inject
    PaymentsConfig paymentsConfig;

    @Inject
    SandboxWebhookSecret secret;

    @Inject
    ObjectMapper json;

    @Inject
    AgroalDataSource db;

    private static CreatePayment payment(String token, String orderId, String key) {
        return new CreatePayment(key, new BigDecimal("1500.00"), "RUB", token, orderId, "pay_test_" + UUID.randomUUID());
    }

    private static CreatePayment payment(String token) {
        return payment(token, "ord_test_" + UUID.randomUUID(), "onceguard-" + UUID.randomUUID());
    }

    private long sandboxPaymentsOf(String orderId) {
        return count(db, "SELECT count(*) FROM sandbox_payments WHERE order_id = ?", orderId);
    }

    @Test
    void isTheEnabledSandboxProvider() {
        assertThat(provider.name()).isEqualTo("sandbox");
        assertThat(provider.enabled()).isTrue();
    }

    @Test
    void createsAPaymentWithTheCallersKeyAndMetadata() throws Exception {
        CreatePayment command = payment("tok_success");

        ProviderPayment created = provider.create(command);

        assertThat(created.status()).isEqualTo(ProviderStatus.SUCCEEDED);
        assertThat(created.providerPaymentId()).startsWith("sbx_");
        assertThat(count(db, "SELECT count(*) FROM sandbox_payments WHERE id = ? AND idempotency_key = ? AND order_id = ?"
                        + " AND metadata ->> 'payment_id' = ? AND amount = 1500.00 AND currency = 'RUB'",
                created.providerPaymentId(), command.idempotencyKey(), command.orderId(), command.paymentId())).isEqualTo(1);
    }

    @Test
    void theSameKeyTwiceNamesTheSamePayment() throws Exception {
        CreatePayment command = payment("tok_success");

        ProviderPayment first = provider.create(command);
        ProviderPayment second = provider.create(command);

        assertThat(second).isEqualTo(first);
        assertThat(sandboxPaymentsOf(command.orderId())).isEqualTo(1);
    }

    @Test
    void mapsEveryImmediateStatus() throws Exception {
        assertThat(provider.create(payment("tok_decline")).status()).isEqualTo(ProviderStatus.FAILED);
        assertThat(provider.create(payment("tok_pending")).status()).isEqualTo(ProviderStatus.PENDING);
        assertThat(provider.create(payment("tok_duplicate_webhooks")).status()).isEqualTo(ProviderStatus.SUCCEEDED);
        assertThat(provider.create(payment("tok_out_of_order")).status()).isEqualTo(ProviderStatus.SUCCEEDED);
    }

    @Test
    void aTimeoutAfterCommitIsAnUnknownOutcomeAndTheRetryFindsTheSamePayment() throws Exception {
        CreatePayment command = payment("tok_timeout_after_commit");

        long started = System.nanoTime();
        assertThatThrownBy(() -> provider.create(command)).isInstanceOf(ProviderOutcomeUnknown.class);
        Duration waited = Duration.ofNanos(System.nanoTime() - started);
        ProviderPayment retried = provider.create(command);

        assertThat(waited).as("it waited its whole timeout (the sandbox answers a second later, "
                        + "so the unknown outcome is the call giving up)")
                .isGreaterThanOrEqualTo(paymentsConfig.providerTimeout());
        assertThat(retried.status()).isEqualTo(ProviderStatus.SUCCEEDED);
        assertThat(sandboxPaymentsOf(command.orderId())).isEqualTo(1);
        assertThat(count(db, "SELECT count(*) FROM sandbox_payments WHERE id = ? AND order_id = ?",
                retried.providerPaymentId(), command.orderId())).isEqualTo(1);
    }

    @Test
    void anErrorAfterCommitIsAnUnknownOutcomeAndTheRetryFindsTheSamePayment() throws Exception {
        CreatePayment command = payment("tok_error_after_commit");

        assertThatThrownBy(() -> provider.create(command)).isInstanceOf(ProviderOutcomeUnknown.class)
                .hasMessageContaining("500");
        ProviderPayment retried = provider.create(command);

        assertThat(retried.status()).isEqualTo(ProviderStatus.SUCCEEDED);
        assertThat(sandboxPaymentsOf(command.orderId())).isEqualTo(1);
    }

    @Test
    void anUnreachableSandboxIsAnUnknownOutcome() throws IOException {
        URI closed;
        try (ServerSocket socket = new ServerSocket(0)) {
            closed = URI.create("http://127.0.0.1:" + socket.getLocalPort() + "/sandbox/v1");
        }
        SandboxPaymentProvider unreachable = new SandboxPaymentProvider(withBaseUrl(closed), paymentsConfig, secret);

        assertThatThrownBy(() -> unreachable.create(payment("tok_success"))).isInstanceOf(ProviderOutcomeUnknown.class);
        assertThatThrownBy(() -> unreachable.retrieve("sbx_any")).isInstanceOf(ProviderOutcomeUnknown.class);
    }

    @Test
    void aRefusedCreateIsAFailedPaymentWithNoCharge() throws Exception {
        CreatePayment command = payment("tok_no_such_behaviour");

        ProviderPayment refused = provider.create(command);

        assertThat(refused).isEqualTo(new ProviderPayment(null, ProviderStatus.FAILED));
        assertThat(sandboxPaymentsOf(command.orderId())).isZero();
    }

    @Test
    void aRefusedRetrieveIsABugNotAnOutcome() {
        assertThatThrownBy(() -> provider.retrieve("sbx_never_made"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("404");
    }

    @Test
    void retrievesThePaymentsCurrentStatus() throws Exception {
        ProviderPayment declined = provider.create(payment("tok_decline"));

        assertThat(provider.retrieve(declined.providerPaymentId())).isEqualTo(declined);
        assertThatThrownBy(() -> provider.retrieve("sbx_unknown")).isInstanceOf(IllegalStateException.class);
    }

    // ---- webhooks ----

    private static Map<String, String> signedHeaders(String id, Instant at, byte[] body, String withSecret) {
        return Map.of(StandardWebhooksSignature.ID, id,
                StandardWebhooksSignature.TIMESTAMP, Long.toString(at.getEpochSecond()),
                StandardWebhooksSignature.SIGNATURE, StandardWebhooksSignature.sign(id, at.getEpochSecond(), body, withSecret));
    }

    private static byte[] event(String type, String status) {
        return ("{\"id\":\"evt_1\",\"type\":\"" + type + "\",\"created\":\"2026-11-29T20:31:07.123Z\",\"data\":{\"object\":"
                + "{\"id\":\"sbx_1\",\"status\":\"" + status + "\",\"amount\":\"1500.00\",\"currency\":\"RUB\"}}}")
                .getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void verifiesDeliveriesSignedWithTheSandboxSecret() {
        byte[] body = event("payment.succeeded", "SUCCEEDED");
        Instant now = Instant.now();

        assertThatCode(() -> provider.verifyWebhook(body, signedHeaders("evt_1", now, body, secret.value())))
                .doesNotThrowAnyException();
        assertThatThrownBy(() -> provider.verifyWebhook(body, signedHeaders("evt_1", now, body,
                "whsec_b3RoZXItc2VjcmV0LW9mLWFub3RoZXItaW5zdGFsbA=="))).isInstanceOf(WebhookRejected.class);
        assertThatThrownBy(() -> provider.verifyWebhook(body, signedHeaders("evt_1", now.minusSeconds(600), body,
                secret.value()))).isInstanceOf(WebhookRejected.class);
    }

    @Test
    void theSecretIsTheConfiguredOne() {
        assertThat(secret.value()).isEqualTo("whsec_c2FuZGJveC13ZWJob29rLXRlc3Qtc2VjcmV0LTMyYiE=");
        assertThat(secret.toString()).doesNotContain(secret.value());
    }

    @Test
    void parsesEventsIntoTheFactTheyReport() throws Exception {
        ProviderEvent succeeded = parsed(event("payment.succeeded", "SUCCEEDED"));

        assertThat(succeeded).isEqualTo(new ProviderEvent("evt_1", "payment.succeeded", "sbx_1", ProviderStatus.SUCCEEDED,
                new BigDecimal("1500.00"), "RUB", Instant.parse("2026-11-29T20:31:07.123Z")));
        assertThat(parsed(event("payment.pending", "PENDING")).status()).isEqualTo(ProviderStatus.PENDING);
        assertThat(parsed(event("payment.canceled", "CANCELED")).status()).isEqualTo(ProviderStatus.CANCELED);
        assertThat(parsed(event("payment.refunded", "REFUNDED")).status()).isNull();
    }

    @Test
    void refusesMalformedEvents() {
        String valid = new String(event("payment.succeeded", "SUCCEEDED"), StandardCharsets.UTF_8);
        for (String malformed : new String[] {
                "[]", "{}",
                valid.replace("\"id\":\"evt_1\",", ""),
                valid.replace("\"id\":\"sbx_1\",", ""),
                valid.replace("\"1500.00\"", "\"a lot\""),
                valid.replace("\"1500.00\"", "1500.00"),
                valid.replace("2026-11-29T20:31:07.123Z", "yesterday"),
                valid.replace("\"SUCCEEDED\"", "\"DONE\"")}) {
            assertThatThrownBy(() -> parsed(malformed.getBytes(StandardCharsets.UTF_8)))
                    .as(malformed).isInstanceOf(WebhookRejected.class);
        }
    }

    @Test
    void parsesWhatTheSandboxActuallySendsWithTheMetadataOnceguardSentEchoed() throws Exception {
        CreatePayment command = payment("tok_decline");
        ProviderPayment created = provider.create(command);
        String body = firstEventBody(created.providerPaymentId());

        ProviderEvent event = parsed(body.getBytes(StandardCharsets.UTF_8));

        assertThat(event.type()).isEqualTo("payment.canceled");
        assertThat(event.providerPaymentId()).isEqualTo(created.providerPaymentId());
        assertThat(event.status()).isEqualTo(ProviderStatus.CANCELED);
        assertThat(event.amount()).isEqualByComparingTo("1500.00");
        assertThat(event.currency()).isEqualTo("RUB");
        assertThat(event.paymentId()).isEqualTo(command.paymentId());
        assertThat(event.orderId()).isEqualTo(command.orderId());
        assertThat(body).contains("\"metadata\":{").contains("\"payment_id\":\"" + command.paymentId() + "\"")
                .contains("\"order_id\":\"" + command.orderId() + "\"");
    }

    private String firstEventBody(String sandboxPaymentId) throws SQLException {
        try (Connection connection = db.getConnection(); PreparedStatement statement = connection.prepareStatement(
                "SELECT body FROM sandbox_webhook_deliveries WHERE payment_id = ? ORDER BY due_at LIMIT 1")) {
            statement.setString(1, sandboxPaymentId);
            try (ResultSet rows = statement.executeQuery()) {
                assertThat(rows.next()).isTrue();
                return rows.getString(1);
            }
        }
    }

    /** The running configuration with another base URL. */
    private SandboxConfig withBaseUrl(URI baseUrl) {
        return (SandboxConfig) Proxy.newProxyInstance(SandboxConfig.class.getClassLoader(), new Class<?>[] {SandboxConfig.class},
                (proxy, method, args) -> method.getName().equals("baseUrl") ? baseUrl : method.invoke(sandboxConfig, args));
    }

    /** The event in {@code body}, read as JSON first as the webhook resource does. */
    private ProviderEvent parsed(byte[] body) throws WebhookRejected {
        try {
            return provider.parseEvent(json.readTree(body));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
