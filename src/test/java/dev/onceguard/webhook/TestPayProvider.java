package dev.onceguard.webhook;

import com.fasterxml.jackson.databind.JsonNode;
import dev.onceguard.payment.provider.CreatePayment;
import dev.onceguard.payment.provider.CreateRefund;
import dev.onceguard.payment.provider.ProviderRefund;
import dev.onceguard.payment.provider.PaymentProvider;
import dev.onceguard.payment.provider.ProviderEvent;
import dev.onceguard.payment.provider.ProviderOutcomeUnknown;
import dev.onceguard.payment.provider.ProviderPayment;
import dev.onceguard.payment.provider.ProviderStatus;
import dev.onceguard.payment.provider.WebhookRejected;
import jakarta.enterprise.context.ApplicationScoped;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.time.Instant;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A test double of an external payment provider, for the webhook inbox tests: it signs its events with a known
 * secret ({@code testpay-timestamp}, {@code testpay-signature: hex HMAC-SHA256 of "timestamp.body"}) and sends
 * {@code {"id","type","payment","status"}}. It has no payment API: the inbox never calls one.
 */
@ApplicationScoped
public class TestPayProvider implements PaymentProvider {

    public static final String NAME = "testpay";
    static final String SECRET = "testpay-webhook-secret";
    private static final long TOLERANCE_SECONDS = 300;

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public boolean enabled() {
        return true;
    }

    @Override
    public ProviderPayment create(CreatePayment command) throws ProviderOutcomeUnknown {
        throw new ProviderOutcomeUnknown("testpay has no payment API", null);
    }

    @Override
    public ProviderPayment retrieve(String providerPaymentId) throws ProviderOutcomeUnknown {
        throw new ProviderOutcomeUnknown("testpay has no payment API", null);
    }

    @Override
    public List<ProviderPayment> paymentsOfOrder(String orderId) throws ProviderOutcomeUnknown {
        throw new ProviderOutcomeUnknown("testpay has no payment API", null);
    }

    @Override
    public ProviderRefund refund(CreateRefund command) throws ProviderOutcomeUnknown {
        throw new ProviderOutcomeUnknown("testpay has no refund API", null);
    }

    @Override
    public Optional<ProviderRefund> findRefund(String providerPaymentId, String refundId) throws ProviderOutcomeUnknown {
        throw new ProviderOutcomeUnknown("testpay has no refund API", null);
    }

    @Override
    public void verifyWebhook(byte[] body, Map<String, String> headers) throws WebhookRejected {
        String timestamp = headers.get("testpay-timestamp");
        String signature = headers.get("testpay-signature");
        if (timestamp == null || signature == null) {
            throw new WebhookRejected("unsigned");
        }
        long signedAt;
        byte[] given;
        try {
            signedAt = Long.parseLong(timestamp);
            given = HexFormat.of().parseHex(signature);
        } catch (IllegalArgumentException e) {
            throw new WebhookRejected("unreadable signature headers");
        }
        if (Math.abs(Instant.now().getEpochSecond() - signedAt) > TOLERANCE_SECONDS) {
            throw new WebhookRejected("timestamp outside tolerance");
        }
        if (!MessageDigest.isEqual(sign(signedAt, body), given)) {
            throw new WebhookRejected("signature mismatch");
        }
    }

    @Override
    public ProviderEvent parseEvent(JsonNode event) throws WebhookRejected {
        try {
            if (event == null || !event.path("id").isTextual() || !event.path("type").isTextual()) {
                throw new WebhookRejected("not a testpay event");
            }
            ProviderStatus status = event.path("status").isTextual()
                    ? ProviderStatus.valueOf(event.get("status").asText()) : null;
            return new ProviderEvent(event.get("id").asText(), event.get("type").asText(),
                    event.path("payment").asText(null), status,
                    event.path("amount").isTextual() ? new BigDecimal(event.get("amount").asText()) : null,
                    event.path("currency").asText(null), null);
        } catch (IllegalArgumentException e) {
            throw new WebhookRejected("not a testpay event");
        }
    }

    static byte[] sign(long timestamp, byte[] body) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(SECRET.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
            mac.update((timestamp + ".").getBytes(StandardCharsets.UTF_8));
            return mac.doFinal(body);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }
}
