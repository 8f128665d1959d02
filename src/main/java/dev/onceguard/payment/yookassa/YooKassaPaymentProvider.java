package dev.onceguard.payment.yookassa;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.onceguard.payment.PaymentsConfig;
import dev.onceguard.platform.HttpClientSpans;
import dev.onceguard.payment.ProviderCallMetrics;
import dev.onceguard.payment.provider.CreatePayment;
import dev.onceguard.payment.provider.CreateRefund;
import dev.onceguard.payment.provider.CustomerAction;
import dev.onceguard.payment.provider.PaymentProvider;
import dev.onceguard.payment.provider.ProviderEvent;
import dev.onceguard.payment.provider.ProviderOutcomeUnknown;
import dev.onceguard.payment.provider.ProviderHttp;
import dev.onceguard.payment.provider.ProviderPayment;
import dev.onceguard.payment.provider.ProviderRefund;
import dev.onceguard.payment.provider.ProviderStatus;
import dev.onceguard.payment.provider.ReadBackFailed;
import dev.onceguard.payment.provider.RefundFact;
import dev.onceguard.payment.provider.RefundStatus;
import dev.onceguard.payment.provider.WebhookRejected;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.jboss.logging.Logger;

import java.io.IOException;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.Base64;
import java.util.Currency;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import static dev.onceguard.payment.provider.ProviderHttp.textOrNull;

/**
 * YooKassa (API v3) behind the provider SPI. A payment is created with {@code capture: true} and a redirect
 * confirmation, with our provider key as YooKassa's {@code Idempotence-Key}, so a repeated create names the same
 * payment; a {@code pending} payment with a confirmation URL waits for the customer on YooKassa's page
 * (REQUIRES_ACTION). Notifications carry no signature: they are accepted only from the configured source networks, and
 * their body is only a hint: the payment is read back through the API, and the event is read from the API's answer,
 * kept with the notification and its source address. Requests authenticate with HTTP Basic (shop id, secret key);
 * neither the key nor a confirmation URL is ever logged or put into an exception message. The adapter reads only the
 * fields named in {@link #PINNED_FIELDS} of a payment.
 */
@ApplicationScoped
public class YooKassaPaymentProvider implements PaymentProvider {

    public static final String NAME = "yookassa";
    /** The fields of a payment object this adapter reads, and the only ones it keeps of a read-back. */
    static final List<String> PINNED_FIELDS = List.of("id", "status", "paid", "amount", "created_at", "metadata",
            "cancellation_details", "test");
    /** The fields of a refund object this adapter reads, and the only ones it keeps of a read-back. */
    static final List<String> PINNED_REFUND_FIELDS = List.of("id", "payment_id", "status", "amount", "created_at",
            "description", "cancellation_details");
    static final String READ_BACK = "read_back";
    private static final Set<String> FINAL_STATUSES = Set.of("succeeded", "canceled");
    private static final Logger LOG = Logger.getLogger(YooKassaPaymentProvider.class);
    private static final ObjectMapper JSON = new ObjectMapper()
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS);

    private final Optional<String> shopId;
    private final Optional<String> secretKey;
    private final String baseUrl;
    private final Optional<String> returnUrl;
    private final SourceNetworks sources;
    private final ProviderCallMetrics metrics;
    private final ProviderHttp http;

    @Inject
    public YooKassaPaymentProvider(YooKassaConfig config, PaymentsConfig payments, ProviderCallMetrics metrics,
                                   HttpClientSpans spans) {
        this(config.shopId(), config.secretKey(), config.baseUrl(), config.returnUrl(), config.notificationSources(),
                payments.providerTimeout(), metrics, spans);
    }

    YooKassaPaymentProvider(Optional<String> shopId, Optional<String> secretKey, String baseUrl,
                            Optional<String> returnUrl, List<String> notificationSources, Duration timeout,
                            ProviderCallMetrics metrics, HttpClientSpans spans) {
        this.shopId = shopId.filter(s -> !s.isBlank());
        this.secretKey = secretKey.filter(s -> !s.isBlank());
        this.baseUrl = baseUrl.endsWith("/") ? baseUrl.substring(0, baseUrl.length() - 1) : baseUrl;
        this.returnUrl = returnUrl.filter(s -> !s.isBlank());
        this.sources = SourceNetworks.of(notificationSources);
        this.metrics = metrics;
        this.http = new ProviderHttp("YooKassa", enabled(), timeout, spans, JSON, YooKassaPaymentProvider::openOutcome);
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public boolean enabled() {
        return shopId.isPresent() && secretKey.isPresent() && returnUrl.isPresent();
    }

    /**
     * {@code POST /payments}. The customer chooses how to pay on YooKassa's page, so the payment method token of the
     * request is not sent.
     */
    @Override
    public ProviderPayment create(CreatePayment command) throws ProviderOutcomeUnknown {
        ObjectNode body = JSON.createObjectNode();
        body.putObject("amount").put("value", decimal(command.amount(), command.currency()))
                .put("currency", command.currency().toUpperCase(Locale.ROOT));
        body.put("capture", true);
        body.putObject("confirmation").put("type", "redirect").put("return_url", returnUrl.orElseThrow());
        body.put("description", "Order " + command.orderId());
        body.putObject("metadata").put("payment_id", command.paymentId()).put("order_id", command.orderId());
        HttpResponse<String> answer = post("/payments", command.idempotencyKey(), body);
        JsonNode payment = http.parse(answer);
        if (answer.statusCode() == 200) {
            return paymentOf(payment);
        }
        // 400, 401, 403, 404: YooKassa refused the request and created nothing.
        LOG.infof("YooKassa refused payment %s: %d %s %s", command.paymentId(), answer.statusCode(),
                payment.path("code").asText(), payment.path("parameter").asText());
        return new ProviderPayment(null, ProviderStatus.FAILED);
    }

    /** {@code GET /payments/{id}}. */
    @Override
    public ProviderPayment retrieve(String providerPaymentId) throws ProviderOutcomeUnknown {
        return paymentOf(readObject("/payments/", providerPaymentId));
    }

    /**
     * Always empty: YooKassa's payment list ({@code GET /payments}) filters by creation and capture time, status and
     * payment method, never by metadata, so the only way to find an order's payments would be to page through every
     * payment of the shop since the order was placed, on every payment attempt. A YooKassa deployment relies on the
     * synchronous standby instead; a charge whose attempt was lost anyway is found in YooKassa's dashboard by the
     * description every payment carries ({@code Order <order id>}).
     */
    @Override
    public List<ProviderPayment> paymentsOfOrder(String orderId) {
        return List.of();
    }

    /** {@code GET /payments/{id}} or {@code GET /refunds/{id}}. */
    private JsonNode readObject(String collection, String id) throws ProviderOutcomeUnknown {
        return http.lookUp(request(collection + URLEncoder.encode(id, StandardCharsets.UTF_8)).GET().build(),
                " for " + collection + id);
    }

    /**
     * {@code POST /refunds} of the payment, with the refund's provider key as {@code Idempotence-Key}; the description
     * names onceguard's refund, which is how {@link #findRefund} recognizes it. A 4xx (more than the payment has left,
     * a payment that cannot be refunded) made no refund: FAILED.
     */
    @Override
    public ProviderRefund refund(CreateRefund command) throws ProviderOutcomeUnknown {
        ObjectNode body = JSON.createObjectNode();
        body.put("payment_id", command.providerPaymentId());
        body.putObject("amount").put("value", decimal(command.amount(), command.currency()))
                .put("currency", command.currency().toUpperCase(Locale.ROOT));
        body.put("description", refundDescription(command.refundId()));
        HttpResponse<String> answer = post("/refunds", command.idempotencyKey(), body);
        JsonNode refund = http.parse(answer);
        if (answer.statusCode() == 200) {
            return refundOf(refund);
        }
        LOG.infof("YooKassa refused refund %s: %d %s %s", command.refundId(), answer.statusCode(),
                refund.path("code").asText(), refund.path("parameter").asText());
        return new ProviderRefund(null, RefundStatus.FAILED);
    }

    /** {@code GET /refunds?payment_id=…}, the refund whose description names onceguard's refund. */
    @Override
    public Optional<ProviderRefund> findRefund(String providerPaymentId, String refundId) throws ProviderOutcomeUnknown {
        JsonNode found = http.lookUp(request("/refunds?payment_id=" + URLEncoder.encode(providerPaymentId,
                StandardCharsets.UTF_8)).GET().build(), " for the refunds of " + providerPaymentId);
        String description = refundDescription(refundId);
        for (JsonNode refund : found.path("items")) {
            if (description.equals(refund.path("description").asText(null))) {
                return Optional.of(refundOf(refund));
            }
        }
        return Optional.empty();
    }

    static String refundDescription(String refundId) {
        return REFUND_DESCRIPTION + refundId;
    }

    private static final String REFUND_DESCRIPTION = "onceguard refund ";

    /** onceguard's refund id, from the description it gave the refund; null for a refund made elsewhere. */
    private static String refundIdOf(JsonNode refund) {
        String description = textOrNull(refund.path("description"));
        return description != null && description.startsWith(REFUND_DESCRIPTION)
                ? description.substring(REFUND_DESCRIPTION.length()) : null;
    }

    private static ProviderRefund refundOf(JsonNode refund) throws ProviderOutcomeUnknown {
        if (!refund.path("id").isTextual() || !refund.path("status").isTextual()) {
            throw new ProviderOutcomeUnknown("YooKassa's answer is not a refund", null);
        }
        RefundStatus status = switch (refund.get("status").asText()) {
            case "succeeded" -> RefundStatus.SUCCEEDED;
            case "pending" -> RefundStatus.PENDING;
            case "canceled" -> RefundStatus.FAILED;
            default -> throw new ProviderOutcomeUnknown("unrecognized refund status " + refund.get("status").asText(),
                    null);
        };
        return new ProviderRefund(refund.get("id").asText(), status);
    }

    /** YooKassa signs no notification; it is trusted only from the networks YooKassa sends from. */
    @Override
    public void verifyWebhook(byte[] body, Map<String, String> headers) {
    }

    @Override
    public void verifySource(String sourceAddress) throws WebhookRejected {
        if (!sources.contains(sourceAddress)) {
            throw new WebhookRejected("notifications are accepted only from onceguard.yookassa.notification-sources; "
                    + sourceAddress + " is not in them");
        }
    }

    @Override
    public boolean readsBack() {
        return true;
    }

    /**
     * Reads the notification's object (a payment or a refund) back through the API and keeps {@code {"notification",
     * "sourceAddress", "readBack"}}, the read-back reduced to the {@link #PINNED_FIELDS} of a payment or the
     * {@link #PINNED_REFUND_FIELDS} of a refund. A notification about any other object is kept without a read-back. An
     * object whose status the API does not (yet) report as final while the notification says it changed, or a
     * read-back without an answer, is {@link ReadBackFailed}: kept and tried again.
     */
    @Override
    public byte[] readBack(byte[] body, String sourceAddress) throws ReadBackFailed {
        JsonNode notification;
        try {
            notification = JSON.readTree(body);
        } catch (IOException e) {
            notification = null;
        }
        ObjectNode kept = JSON.createObjectNode();
        kept.set("notification", notification);
        kept.put("sourceAddress", sourceAddress);
        Optional<ProviderEvent> hint = hint(notification);
        if (hint.isEmpty()) {
            return bytes(kept);
        }
        boolean aboutPayment = hint.get().type().startsWith("payment.");
        if (!aboutPayment && !hint.get().type().startsWith("refund.")) {
            return bytes(kept);
        }
        String kind = aboutPayment ? "payment" : "refund";
        String objectId = notification.get("object").get("id").asText();
        JsonNode object;
        try {
            object = metrics.measureObject(NAME, READ_BACK, () -> readObject(aboutPayment ? "/payments/" : "/refunds/",
                    objectId));
        } catch (ProviderOutcomeUnknown e) {
            kept.put("readBackError", e.getMessage());
            throw new ReadBackFailed("reading " + kind + " " + objectId + " back failed: " + e.getMessage(),
                    hint.get(), bytes(kept), e);
        }
        ObjectNode pinned = JSON.createObjectNode();
        (aboutPayment ? PINNED_FIELDS : PINNED_REFUND_FIELDS).forEach(field -> {
            if (object.has(field)) {
                pinned.set(field, object.get(field));
            }
        });
        kept.set("readBack", pinned);
        String said = hint.get().type().substring(kind.length() + 1);
        String status = object.path("status").asText();
        if (!said.equals(status) && !FINAL_STATUSES.contains(status)) {
            kept.put("readBackError", "the notification says " + said + ", the API says " + status);
            throw new ReadBackFailed(kind + " " + objectId + " is " + status + " at YooKassa, not " + said
                    + " as the notification says", hint.get(), bytes(kept), null);
        }
        return bytes(kept);
    }

    /**
     * Reads what {@link #readBack} kept. The event is named by the notification's event and object id (so a repeated
     * notification is a duplicate), and everything else comes from the read-back: a lying notification settles
     * nothing the API does not say. A payment notification kept without a read-back is not applied.
     */
    @Override
    public ProviderEvent parseEvent(JsonNode kept) throws WebhookRejected {
        ProviderEvent hint = hint(kept == null ? null : kept.path("notification"))
                .orElseThrow(() -> new WebhookRejected("the body is not a YooKassa notification"));
        boolean aboutPayment = hint.type().startsWith("payment.");
        if (!aboutPayment && !hint.type().startsWith("refund.")) {
            return hint;
        }
        JsonNode object = kept.path("readBack");
        if (!object.isObject() || kept.has("readBackError")) {
            throw new WebhookRejected("the API has not confirmed the notification " + hint.eventId());
        }
        return aboutPayment ? paymentEvent(hint, object) : refundEvent(hint, object);
    }

    /** A refund notification as the read-back tells it: the refund's status, amount and payment are the API's. */
    private static ProviderEvent refundEvent(ProviderEvent hint, JsonNode refund) throws WebhookRejected {
        ProviderRefund current;
        try {
            current = refundOf(refund);
        } catch (ProviderOutcomeUnknown e) {
            throw new WebhookRejected("the read-back is not a YooKassa refund: " + e.getMessage());
        }
        return ProviderEvent.aboutRefund(hint.eventId(), hint.type(), textOrNull(refund.path("payment_id")),
                instantOrNull(refund.path("created_at")), new RefundFact(current.providerRefundId(), refundIdOf(refund),
                        current.status(), valueOf(refund), currencyOf(refund)));
    }

    private static ProviderEvent paymentEvent(ProviderEvent hint, JsonNode payment) throws WebhookRejected {
        if (!payment.path("id").isTextual() || !payment.path("status").isTextual()) {
            throw new WebhookRejected("the read-back is not a YooKassa payment");
        }
        JsonNode metadata = payment.path("metadata");
        return new ProviderEvent(hint.eventId(), hint.type(), payment.get("id").asText(),
                eventStatus(payment), valueOf(payment), currencyOf(payment), instantOrNull(payment.path("created_at")),
                null, textOrNull(metadata.path("payment_id")), textOrNull(metadata.path("order_id")));
    }

    /** An object's {@code amount.value}, a decimal string; null when it is missing or not a number. */
    private static BigDecimal valueOf(JsonNode object) {
        JsonNode value = object.path("amount").path("value");
        return value.isTextual() ? decimalOrNull(value.asText()) : null;
    }

    private static String currencyOf(JsonNode object) {
        return textOrNull(object.path("amount").path("currency"));
    }

    /** The notification's event, named {@code <event>:<object id>}, before anything about it is confirmed. */
    private static Optional<ProviderEvent> hint(JsonNode notification) {
        if (notification == null || !"notification".equals(notification.path("type").asText())
                || !notification.path("event").isTextual() || !notification.path("object").path("id").isTextual()) {
            return Optional.empty();
        }
        String event = notification.get("event").asText();
        String objectId = notification.get("object").get("id").asText();
        return Optional.of(new ProviderEvent(event + ":" + objectId, event,
                event.startsWith("payment.") ? objectId : null, null, null, null, null));
    }

    /** A read-back's status as an event applies it; {@code waiting_for_capture} is not acted on. */
    private static ProviderStatus eventStatus(JsonNode payment) {
        return switch (payment.get("status").asText()) {
            case "succeeded" -> ProviderStatus.SUCCEEDED;
            case "canceled" -> ProviderStatus.CANCELED;
            case "pending" -> payment.path("confirmation").isObject() ? ProviderStatus.REQUIRES_ACTION : ProviderStatus.PENDING;
            default -> null;
        };
    }

    /**
     * A payment as the API answers it. {@code waiting_for_capture} never follows a {@code capture: true} create, so
     * onceguard does not settle it: it is unknown until a later read says succeeded or canceled.
     */
    static ProviderPayment paymentOf(JsonNode payment) throws ProviderOutcomeUnknown {
        if (!payment.path("id").isTextual() || !payment.path("status").isTextual()) {
            throw new ProviderOutcomeUnknown("YooKassa's answer is not a payment", null);
        }
        String id = payment.get("id").asText();
        String status = payment.get("status").asText();
        return switch (status) {
            case "succeeded" -> new ProviderPayment(id, ProviderStatus.SUCCEEDED);
            case "canceled" -> new ProviderPayment(id, ProviderStatus.CANCELED, null, cancellation(payment));
            case "pending" -> {
                String url = textOrNull(payment.path("confirmation").path("confirmation_url"));
                yield url == null ? new ProviderPayment(id, ProviderStatus.PENDING)
                        : new ProviderPayment(id, ProviderStatus.REQUIRES_ACTION, CustomerAction.redirect(url), null);
            }
            case "waiting_for_capture" -> throw new ProviderOutcomeUnknown("payment " + id
                    + " is waiting_for_capture, which a payment created with capture: true is not expected to be", null);
            default -> throw new ProviderOutcomeUnknown("unrecognized payment status " + status, null);
        };
    }

    /** {@code cancellation_details} as a failure reason: who canceled ({@code party}) and why ({@code reason}). */
    private static String cancellation(JsonNode payment) {
        JsonNode details = payment.path("cancellation_details");
        String party = textOrNull(details.path("party"));
        String reason = textOrNull(details.path("reason"));
        if (reason == null) {
            return null;
        }
        return "YooKassa cancellation: " + reason + (party == null ? "" : " (by " + party + ")");
    }

    /** The amount as YooKassa writes it: a decimal string with the currency's digits ("1500.00"). */
    static String decimal(BigDecimal amount, String currency) {
        int digits = Math.max(0, Currency.getInstance(currency.toUpperCase(Locale.ROOT)).getDefaultFractionDigits());
        return amount.setScale(digits, RoundingMode.UNNECESSARY).toPlainString();
    }

    private static BigDecimal decimalOrNull(String value) {
        try {
            return new BigDecimal(value);
        } catch (NumberFormatException e) {
            return null;
        }
    }

    private static Instant instantOrNull(JsonNode node) {
        try {
            return node.isTextual() ? OffsetDateTime.parse(node.asText()).toInstant() : null;
        } catch (DateTimeParseException e) {
            return null;
        }
    }

    private static byte[] bytes(JsonNode node) {
        try {
            return JSON.writeValueAsBytes(node);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a JSON tree could not be written", e);
        }
    }

    private HttpRequest.Builder request(String path) {
        String credentials = shopId.orElseThrow() + ":" + secretKey.orElseThrow();
        return http.request(URI.create(baseUrl + path))
                .header("Authorization", "Basic " + Base64.getEncoder()
                        .encodeToString(credentials.getBytes(StandardCharsets.UTF_8)))
                .header("Accept", "application/json");
    }

    private HttpResponse<String> post(String path, String idempotenceKey, ObjectNode body)
            throws ProviderOutcomeUnknown {
        return http.send(request(path)
                .header("Idempotence-Key", idempotenceKey)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body.toString()))
                .build());
    }

    /**
     * The answers that leave a call's outcome open besides a timeout or a broken connection (5xx, 429, any 2xx but
     * 200): YooKassa asks for the same request again with the same key, or for the object to be read.
     */
    private static String openOutcome(HttpResponse<String> answer) {
        int status = answer.statusCode();
        return status >= 500 || status == 429 || (status >= 201 && status < 300) ? "YooKassa answered " + status
                : null;
    }
}
