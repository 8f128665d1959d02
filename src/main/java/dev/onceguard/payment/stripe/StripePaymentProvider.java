package dev.onceguard.payment.stripe;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.onceguard.payment.PaymentsConfig;
import dev.onceguard.platform.HttpClientSpans;
import dev.onceguard.payment.provider.CreatePayment;
import dev.onceguard.payment.provider.CreateRefund;
import dev.onceguard.payment.provider.ProviderRefund;
import dev.onceguard.payment.provider.RefundFact;
import dev.onceguard.payment.provider.RefundStatus;
import dev.onceguard.payment.provider.CustomerAction;
import dev.onceguard.payment.provider.PaymentProvider;
import dev.onceguard.payment.provider.ProviderEvent;
import dev.onceguard.payment.provider.ProviderOutcomeUnknown;
import dev.onceguard.payment.provider.ProviderHttp;
import dev.onceguard.payment.provider.ProviderPayment;
import dev.onceguard.payment.provider.ProviderStatus;
import dev.onceguard.payment.provider.WebhookRejected;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.logging.Logger;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Currency;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

import static dev.onceguard.payment.provider.ProviderHttp.textOrNull;

/**
 * Stripe PaymentIntents behind the provider SPI: create (confirmed at once, with our provider key as Stripe's
 * {@code Idempotency-Key}), retrieve, refunds ({@code POST /v1/refunds}, with the refund's provider key) and their
 * look-up, {@code Stripe-Signature} verification and event parsing. Every call pins the
 * API version ({@code onceguard.stripe.api-version}), so that a change of the account's default version never
 * changes the shapes this adapter reads. An intent in {@code requires_action} (3-D Secure) is reported with its
 * client secret and next action for the client. Enabled only when both the API key and the webhook endpoint secret
 * are configured. Neither the key, a client secret nor a payment method token is ever logged or put into an
 * exception message.
 */
@ApplicationScoped
public class StripePaymentProvider implements PaymentProvider {

    public static final String NAME = "stripe";
    /** The Stripe API version whose object shapes this adapter reads. */
    public static final String PINNED_API_VERSION = "2024-06-20";
    static final Duration SIGNATURE_TOLERANCE = Duration.ofSeconds(300);
    private static final Logger LOG = Logger.getLogger(StripePaymentProvider.class);
    private static final ObjectMapper JSON = new ObjectMapper();

    private final Optional<String> apiKey;
    private final Optional<String> webhookSecret;
    private final URI baseUrl;
    private final String apiVersion;
    private final ProviderHttp http;

    @Inject
    public StripePaymentProvider(@ConfigProperty(name = "onceguard.stripe.api-key") Optional<String> apiKey,
                                 @ConfigProperty(name = "onceguard.webhooks.stripe.secret") Optional<String> webhookSecret,
                                 @ConfigProperty(name = "onceguard.stripe.base-url", defaultValue = "https://api.stripe.com")
                                 URI baseUrl,
                                 @ConfigProperty(name = "onceguard.stripe.api-version", defaultValue = PINNED_API_VERSION)
                                 String apiVersion,
                                 PaymentsConfig payments, HttpClientSpans spans) {
        this(apiKey, webhookSecret, baseUrl, apiVersion, payments.providerTimeout(), spans);
    }

    StripePaymentProvider(Optional<String> apiKey, Optional<String> webhookSecret, URI baseUrl, String apiVersion,
                          Duration timeout, HttpClientSpans spans) {
        this.apiKey = apiKey.filter(s -> !s.isBlank());
        this.webhookSecret = webhookSecret.filter(s -> !s.isBlank());
        this.baseUrl = baseUrl;
        this.apiVersion = apiVersion;
        this.http = new ProviderHttp("Stripe", enabled(), timeout, spans, JSON, StripePaymentProvider::openOutcome);
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public boolean enabled() {
        return apiKey.isPresent() && webhookSecret.isPresent();
    }

    @Override
    public ProviderPayment create(CreatePayment command) throws ProviderOutcomeUnknown {
        Map<String, String> form = new LinkedHashMap<>();
        form.put("amount", String.valueOf(minorUnits(command.amount(), command.currency())));
        form.put("currency", command.currency().toLowerCase(Locale.ROOT));
        form.put("payment_method", command.paymentMethodToken());
        form.put("confirm", "true");
        // Confirmed server-side with no return URL: only payment methods that need no redirect may be used.
        form.put("automatic_payment_methods[enabled]", "true");
        form.put("automatic_payment_methods[allow_redirects]", "never");
        form.put("metadata[order_id]", command.orderId());
        form.put("metadata[payment_id]", command.paymentId());
        HttpResponse<String> answer = post("/v1/payment_intents", command.idempotencyKey(), form);
        JsonNode body = http.parse(answer);
        if (answer.statusCode() == 200) {
            return paymentOf(body);
        }
        JsonNode error = refusal(answer, body);
        // A decline (402 card_error) or a request Stripe refused to execute: no charge happened.
        String intentId = error.path("payment_intent").path("id").asText(null);
        LOG.infof("Stripe refused payment %s: %d %s %s", command.paymentId(), answer.statusCode(),
                error.path("type").asText(), error.path("code").asText());
        return new ProviderPayment(intentId, ProviderStatus.FAILED);
    }

    @Override
    public ProviderPayment retrieve(String providerPaymentId) throws ProviderOutcomeUnknown {
        return paymentOf(get("/v1/payment_intents/" + URLEncoder.encode(providerPaymentId, StandardCharsets.UTF_8),
                " for " + providerPaymentId));
    }

    /**
     * {@code GET /v1/payment_intents/search?query=metadata['order_id']:'…'}. Stripe's search index lags its writes
     * (Stripe documents "generally under a minute"), so an intent created moments ago may not be listed yet.
     */
    @Override
    public List<ProviderPayment> paymentsOfOrder(String orderId) throws ProviderOutcomeUnknown {
        String query = "metadata['order_id']:'" + orderId.replace("\\", "\\\\").replace("'", "\\'") + "'";
        JsonNode found = get("/v1/payment_intents/search?limit=100&query=" + URLEncoder.encode(query,
                StandardCharsets.UTF_8), " to the search for the intents of order " + orderId);
        List<ProviderPayment> payments = new ArrayList<>();
        for (JsonNode intent : found.path("data")) {
            payments.add(paymentOf(intent));
        }
        return payments;
    }

    /**
     * {@code POST /v1/refunds} of the intent, with the refund's provider key as Stripe's {@code Idempotency-Key} and
     * onceguard's ids as metadata. A 4xx other than an idempotency error (more than remains of the charge, a charge
     * already refunded) made no refund: FAILED.
     */
    @Override
    public ProviderRefund refund(CreateRefund command) throws ProviderOutcomeUnknown {
        Map<String, String> form = new LinkedHashMap<>();
        form.put("payment_intent", command.providerPaymentId());
        form.put("amount", String.valueOf(minorUnits(command.amount(), command.currency())));
        form.put("metadata[refund_id]", command.refundId());
        form.put("metadata[payment_id]", command.paymentId());
        HttpResponse<String> answer = post("/v1/refunds", command.idempotencyKey(), form);
        JsonNode body = http.parse(answer);
        if (answer.statusCode() == 200) {
            return refundOf(body);
        }
        JsonNode error = refusal(answer, body);
        LOG.infof("Stripe refused refund %s: %d %s %s", command.refundId(), answer.statusCode(),
                error.path("type").asText(), error.path("code").asText());
        return new ProviderRefund(null, RefundStatus.FAILED);
    }

    /** {@code GET /v1/refunds?payment_intent=…}, the refund whose {@code metadata.refund_id} is onceguard's id. */
    @Override
    public Optional<ProviderRefund> findRefund(String providerPaymentId, String refundId) throws ProviderOutcomeUnknown {
        JsonNode found = get("/v1/refunds?limit=100&payment_intent=" + URLEncoder.encode(providerPaymentId,
                StandardCharsets.UTF_8), " for the refunds of " + providerPaymentId);
        for (JsonNode refund : found.path("data")) {
            if (refundId.equals(refund.path("metadata").path("refund_id").asText(null))) {
                return Optional.of(refundOf(refund));
            }
        }
        return Optional.empty();
    }

    static RefundStatus refundStatusOf(String status) throws ProviderOutcomeUnknown {
        return switch (status) {
            case "succeeded" -> RefundStatus.SUCCEEDED;
            case "pending", "requires_action" -> RefundStatus.PENDING;
            case "failed", "canceled" -> RefundStatus.FAILED;
            default -> throw new ProviderOutcomeUnknown("unrecognized Refund status " + status, null);
        };
    }

    private static ProviderRefund refundOf(JsonNode refund) throws ProviderOutcomeUnknown {
        if (!refund.path("id").isTextual() || !refund.path("status").isTextual()) {
            throw new ProviderOutcomeUnknown("Stripe's answer is not a Refund", null);
        }
        return new ProviderRefund(refund.get("id").asText(), refundStatusOf(refund.get("status").asText()));
    }

    /** {@code Stripe-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "t.body">[,v1=…]}. */
    @Override
    public void verifyWebhook(byte[] body, Map<String, String> headers) throws WebhookRejected {
        String header = headers.get("stripe-signature");
        if (header == null) {
            throw new WebhookRejected("no Stripe-Signature header");
        }
        String timestamp = null;
        List<String> signatures = new ArrayList<>();
        for (String item : header.split(",")) {
            int eq = item.indexOf('=');
            if (eq > 0) {
                String key = item.substring(0, eq).trim();
                String value = item.substring(eq + 1).trim();
                if (key.equals("t")) {
                    timestamp = value;
                } else if (key.equals("v1")) {
                    signatures.add(value);
                }
            }
        }
        if (timestamp == null || signatures.isEmpty()) {
            throw new WebhookRejected("Stripe-Signature has no timestamp or no v1 signature");
        }
        long signedAt;
        try {
            signedAt = Long.parseLong(timestamp);
        } catch (NumberFormatException e) {
            throw new WebhookRejected("Stripe-Signature timestamp is not a number");
        }
        if (Math.abs(Instant.now().getEpochSecond() - signedAt) > SIGNATURE_TOLERANCE.toSeconds()) {
            throw new WebhookRejected("Stripe-Signature timestamp is outside the tolerance of "
                    + SIGNATURE_TOLERANCE.toSeconds() + " s");
        }
        byte[] expected = hmac(webhookSecret.orElseThrow(), signedAt, body);
        if (signatures.stream().noneMatch(signature -> MessageDigest.isEqual(expected, hex(signature)))) {
            throw new WebhookRejected("no v1 signature matches");
        }
    }

    /** A Stripe event; the {@code payment_intent.*} types onceguard acts on carry the PaymentIntent as data.object. */
    @Override
    public ProviderEvent parseEvent(JsonNode event) throws WebhookRejected {
        if (event == null || !event.isObject() || !event.path("id").isTextual() || !event.path("type").isTextual()) {
            throw new WebhookRejected("the body is not a Stripe event");
        }
        String type = event.get("type").asText();
        JsonNode object = event.path("data").path("object");
        Instant created = event.path("created").canConvertToLong() ? Instant.ofEpochSecond(event.get("created").asLong()) : null;
        Optional<ProviderEvent> aboutRefund = refundEvent(event, type, object, created);
        if (aboutRefund.isPresent()) {
            return aboutRefund.get();
        }
        ProviderStatus status = switch (type) {
            case "payment_intent.succeeded" -> ProviderStatus.SUCCEEDED;
            case "payment_intent.processing" -> ProviderStatus.PENDING;
            case "payment_intent.payment_failed" -> ProviderStatus.FAILED;
            case "payment_intent.canceled" -> ProviderStatus.CANCELED;
            default -> null;
        };
        boolean intent = "payment_intent".equals(object.path("object").asText());
        String intentId = intent ? object.path("id").asText(null) : null;
        if (status != null && intentId == null) {
            throw new WebhookRejected(type + " without a payment intent in data.object");
        }
        String currency = intent && object.path("currency").isTextual() ? object.get("currency").asText().toUpperCase(Locale.ROOT) : null;
        BigDecimal amount;
        try {
            amount = currency != null && object.path("amount").canConvertToLong()
                    ? fromMinorUnits(object.get("amount").asLong(), currency) : null;
        } catch (IllegalArgumentException unknownCurrency) {
            throw new WebhookRejected("the payment intent's currency is not an ISO 4217 code");
        }
        JsonNode metadata = object.path("metadata");
        return new ProviderEvent(event.get("id").asText(), type, intentId, status, amount, currency, created,
                textOrNull(event.path("request").path("idempotency_key")), textOrNull(metadata.path("payment_id")),
                textOrNull(metadata.path("order_id")));
    }

    /**
     * {@code refund.updated} and {@code refund.failed} carry the Refund as data.object; {@code charge.refunded} carries
     * the Charge, whose {@code refunds} list (newest first) is read when the event includes it. A charge.refunded
     * without its refunds is not a refund event (it is ignored: the refund's own refund.updated reports the fact).
     */
    private static Optional<ProviderEvent> refundEvent(JsonNode event, String type, JsonNode object, Instant created)
            throws WebhookRejected {
        JsonNode refund;
        if (type.equals("refund.updated") || type.equals("refund.failed")) {
            refund = object;
        } else if (type.equals("charge.refunded") && object.path("refunds").path("data").isArray()
                && !object.path("refunds").path("data").isEmpty()) {
            refund = object.path("refunds").path("data").get(0);
        } else {
            return Optional.empty();
        }
        if (!"refund".equals(refund.path("object").asText()) || !refund.path("id").isTextual()
                || !refund.path("payment_intent").isTextual() || !refund.path("currency").isTextual()
                || !refund.path("amount").canConvertToLong() || !refund.path("status").isTextual()) {
            throw new WebhookRejected(type + " without a refund in data.object");
        }
        RefundStatus status;
        try {
            status = refundStatusOf(refund.get("status").asText());
        } catch (ProviderOutcomeUnknown e) {
            throw new WebhookRejected(type + " with an unrecognized refund status");
        }
        String currency = refund.get("currency").asText().toUpperCase(Locale.ROOT);
        return Optional.of(ProviderEvent.aboutRefund(event.get("id").asText(), type,
                refund.get("payment_intent").asText(), created, new RefundFact(refund.get("id").asText(),
                        textOrNull(refund.path("metadata").path("refund_id")), status,
                        fromMinorUnits(refund.get("amount").asLong(), currency), currency)));
    }

    /** Stripe amounts are integers in the currency's minor unit (kopecks, cents; yen as they are). */
    static long minorUnits(BigDecimal amount, String currency) {
        int digits = Math.max(0, Currency.getInstance(currency.toUpperCase(Locale.ROOT)).getDefaultFractionDigits());
        return amount.movePointRight(digits).setScale(0, RoundingMode.UNNECESSARY).longValueExact();
    }

    static BigDecimal fromMinorUnits(long amount, String currency) {
        int digits = Math.max(0, Currency.getInstance(currency).getDefaultFractionDigits());
        return BigDecimal.valueOf(amount, digits).setScale(Math.max(2, digits), RoundingMode.UNNECESSARY);
    }

    static ProviderStatus statusOf(String intentStatus) throws ProviderOutcomeUnknown {
        return switch (intentStatus) {
            case "succeeded" -> ProviderStatus.SUCCEEDED;
            case "requires_action" -> ProviderStatus.REQUIRES_ACTION;
            case "processing", "requires_confirmation", "requires_capture" -> ProviderStatus.PENDING;
            // Our intents are created confirmed, so needing a payment method again means the one given was declined.
            case "requires_payment_method" -> ProviderStatus.FAILED;
            case "canceled" -> ProviderStatus.CANCELED;
            default -> throw new ProviderOutcomeUnknown("unrecognized PaymentIntent status " + intentStatus, null);
        };
    }

    private static ProviderPayment paymentOf(JsonNode intent) throws ProviderOutcomeUnknown {
        if (!intent.path("id").isTextual() || !intent.path("status").isTextual()) {
            throw new ProviderOutcomeUnknown("Stripe's answer is not a PaymentIntent", null);
        }
        ProviderStatus status = statusOf(intent.get("status").asText());
        CustomerAction action = status == ProviderStatus.REQUIRES_ACTION
                ? new CustomerAction(textOrNull(intent.path("client_secret")), intent.path("next_action").isObject()
                ? intent.get("next_action") : null, null)
                : null;
        return new ProviderPayment(intent.get("id").asText(), status, action, null);
    }

    private HttpRequest.Builder request(String path) {
        return http.request(baseUrl.resolve(path))
                .header("Authorization", "Bearer " + apiKey.orElseThrow())
                .header("Stripe-Version", apiVersion)
                .header("Accept", "application/json");
    }

    private HttpResponse<String> post(String path, String idempotencyKey, Map<String, String> form)
            throws ProviderOutcomeUnknown {
        return http.send(request(path)
                .header("Idempotency-Key", idempotencyKey)
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString(formEncode(form)))
                .build());
    }

    /** A look-up: anything but 200 leaves the answer unknown ({@code what} names it in the message). */
    private JsonNode get(String path, String what) throws ProviderOutcomeUnknown {
        return http.lookUp(request(path).GET().build(), what);
    }

    /** The error of a create Stripe refused; one about the idempotency key leaves the outcome open. */
    private static JsonNode refusal(HttpResponse<String> answer, JsonNode body) throws ProviderOutcomeUnknown {
        JsonNode error = body.path("error");
        if ("idempotency_error".equals(error.path("type").asText())) {
            throw new ProviderOutcomeUnknown("Stripe refused the idempotency key (" + answer.statusCode() + ")", null);
        }
        return error;
    }

    /** The answers that leave a call's outcome open besides a timeout or a broken connection: 5xx, 429, 409. */
    private static String openOutcome(HttpResponse<String> answer) {
        int status = answer.statusCode();
        return status >= 500 || status == 429 || status == 409 ? "Stripe answered " + status + " (request "
                + answer.headers().firstValue("Request-Id").orElse("?") + ")" : null;
    }

    static String formEncode(Map<String, String> fields) {
        return fields.entrySet().stream()
                .map(f -> URLEncoder.encode(f.getKey(), StandardCharsets.UTF_8) + "="
                        + URLEncoder.encode(f.getValue(), StandardCharsets.UTF_8))
                .collect(Collectors.joining("&"));
    }

    private static byte[] hmac(String secret, long timestamp, byte[] body) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
            mac.update((timestamp + ".").getBytes(StandardCharsets.UTF_8));
            return mac.doFinal(body);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is not available", e);
        }
    }

    private static byte[] hex(String signature) {
        try {
            return HexFormat.of().parseHex(signature);
        } catch (IllegalArgumentException e) {
            return new byte[0];
        }
    }
}
