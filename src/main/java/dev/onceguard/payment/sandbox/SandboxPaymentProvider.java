package dev.onceguard.payment.sandbox;

import dev.onceguard.sandbox.SandboxWebhookSecret;
import dev.onceguard.platform.StandardWebhooksSignature;
import com.fasterxml.jackson.databind.JsonNode;
import dev.onceguard.payment.PaymentsConfig;
import dev.onceguard.payment.provider.CreatePayment;
import dev.onceguard.payment.provider.CreateRefund;
import dev.onceguard.payment.provider.ProviderRefund;
import dev.onceguard.payment.provider.RefundFact;
import dev.onceguard.payment.provider.RefundStatus;
import dev.onceguard.payment.provider.PaymentProvider;
import dev.onceguard.payment.provider.ProviderEvent;
import dev.onceguard.payment.provider.ProviderOutcomeUnknown;
import dev.onceguard.payment.provider.ProviderPayment;
import dev.onceguard.payment.provider.ProviderStatus;
import dev.onceguard.payment.provider.WebhookRejected;
import dev.onceguard.sandbox.SandboxCaller;
import dev.onceguard.sandbox.SandboxConfig;
import io.quarkus.rest.client.reactive.QuarkusRestClientBuilder;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.ws.rs.ProcessingException;
import jakarta.ws.rs.WebApplicationException;
import org.jboss.logging.Logger;

import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import static dev.onceguard.payment.provider.ProviderHttp.textOrNull;

/**
 * The adapter for the built-in sandbox provider. It calls the sandbox over HTTP at {@code onceguard.sandbox.base-url},
 * exactly as it would call an external provider, with {@code onceguard.payments.provider-timeout} as connect and read
 * timeout: a timeout, a 5xx or a broken connection is an unknown outcome, never a failure. A 4xx to a create (an
 * unknown payment method token, a body it does not accept) is the sandbox's final refusal: it did not and will not
 * charge, so the payment has FAILED, as with Stripe's refusals. A 4xx to a retrieve means onceguard asked for a payment
 * the sandbox never made, a bug. Refunds go the same way: a 4xx to a refund (more than remains of the payment) is a
 * refund that FAILED; a refund is found again by the {@code refund_id} metadata sent with it.
 */
@ApplicationScoped
public class SandboxPaymentProvider implements PaymentProvider, SandboxCaller {

    public static final String NAME = "sandbox";
    /** Metadata keys sent with every payment and echoed by the sandbox in its events, as Stripe does. */
    static final String ORDER_ID = "order_id";
    static final String PAYMENT_ID = "payment_id";
    /** Metadata key sent with every refund, echoed in its events and its place in the refund list. */
    static final String REFUND_ID = "refund_id";
    private static final Logger LOG = Logger.getLogger(SandboxPaymentProvider.class);

    private final SandboxConfig sandbox;
    private final PaymentsConfig payments;
    private final SandboxWebhookSecret secret;
    private volatile SandboxApi api;

    public SandboxPaymentProvider(SandboxConfig sandbox, PaymentsConfig payments, SandboxWebhookSecret secret) {
        this.sandbox = sandbox;
        this.payments = payments;
        this.secret = secret;
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Duration callTimeout() {
        return payments.providerTimeout();
    }

    @Override
    public boolean enabled() {
        return sandbox.enabled();
    }

    @Override
    public ProviderPayment create(CreatePayment command) throws ProviderOutcomeUnknown {
        SandboxApi.CreateBody body = new SandboxApi.CreateBody(command.amount().setScale(2).toPlainString(),
                command.currency(), command.paymentMethodToken(),
                Map.of(ORDER_ID, command.orderId(), PAYMENT_ID, command.paymentId()));
        String what = "create payment " + command.paymentId();
        try {
            return toPayment(call(what, () -> api().create(command.idempotencyKey(), body)));
        } catch (SandboxRefused e) {
            LOG.infof("sandbox refused %s with %d", what, e.status);
            return new ProviderPayment(null, ProviderStatus.FAILED);
        }
    }

    @Override
    public ProviderPayment retrieve(String providerPaymentId) throws ProviderOutcomeUnknown {
        return toPayment(lookUp("retrieve " + providerPaymentId, () -> api().get(providerPaymentId)));
    }

    /** {@code GET /payments?orderId=…}: the sandbox keeps each payment's order, from the {@code order_id} metadata. */
    @Override
    public List<ProviderPayment> paymentsOfOrder(String orderId) throws ProviderOutcomeUnknown {
        return lookUp("list the payments of order " + orderId, () -> api().ofOrder(orderId)).data().stream()
                .map(SandboxPaymentProvider::toPayment).toList();
    }

    @Override
    public ProviderRefund refund(CreateRefund command) throws ProviderOutcomeUnknown {
        SandboxApi.CreateRefundBody body = new SandboxApi.CreateRefundBody(command.providerPaymentId(),
                command.amount().setScale(2).toPlainString(), command.currency(),
                Map.of(REFUND_ID, command.refundId(), PAYMENT_ID, command.paymentId()));
        String what = "refund " + command.refundId();
        try {
            return toRefund(call(what, () -> api().refund(command.idempotencyKey(), body)));
        } catch (SandboxRefused e) {
            LOG.infof("sandbox refused %s with %d", what, e.status);
            return new ProviderRefund(null, RefundStatus.FAILED);
        }
    }

    @Override
    public Optional<ProviderRefund> findRefund(String providerPaymentId, String refundId) throws ProviderOutcomeUnknown {
        return lookUp("list the refunds of " + providerPaymentId, () -> api().refundsOf(providerPaymentId)).data()
                .stream().filter(refund -> refund.metadata() != null && refundId.equals(refund.metadata().get(REFUND_ID)))
                .findFirst().map(SandboxPaymentProvider::toRefund);
    }

    @Override
    public void verifyWebhook(byte[] body, Map<String, String> headers) throws WebhookRejected {
        try {
            StandardWebhooksSignature.verify(headers, body, secret.value(), Instant.now());
        } catch (StandardWebhooksSignature.Rejected rejected) {
            throw new WebhookRejected(rejected.getMessage());
        }
    }

    @Override
    public ProviderEvent parseEvent(JsonNode event) throws WebhookRejected {
        if (event == null || !event.isObject()) {
            throw new WebhookRejected("sandbox event is not a JSON object");
        }
        JsonNode object = event.path("data").path("object");
        String type = text(event, "type");
        try {
            if (type.equals("refund.succeeded") || type.equals("refund.failed")) {
                return refundEvent(event, object, type);
            }
            ProviderStatus status = switch (type) {
                case "payment.succeeded", "payment.pending", "payment.canceled" -> paymentStatus(text(object, "status"))
                        .orElseThrow(() -> new WebhookRejected("sandbox event has an unknown status"));
                default -> null;
            };
            JsonNode metadata = object.path("metadata");
            return new ProviderEvent(text(event, "id"), type, text(object, "id"), status,
                    new BigDecimal(text(object, "amount")), text(object, "currency"), Instant.parse(text(event, "created")),
                    null, textOrNull(metadata.path(PAYMENT_ID)), textOrNull(metadata.path(ORDER_ID)));
        } catch (NumberFormatException e) {
            throw new WebhookRejected("sandbox event has a malformed amount");
        } catch (DateTimeParseException e) {
            throw new WebhookRejected("sandbox event has a malformed created timestamp");
        }
    }

    private static ProviderEvent refundEvent(JsonNode event, JsonNode object, String type) throws WebhookRejected {
        RefundStatus status = refundStatus(text(object, "status"))
                .orElseThrow(() -> new WebhookRejected("sandbox refund event has an unknown status"));
        return ProviderEvent.aboutRefund(text(event, "id"), type, text(object, "payment"),
                Instant.parse(text(event, "created")), new RefundFact(text(object, "id"),
                        textOrNull(object.path("metadata").path(REFUND_ID)), status,
                        new BigDecimal(text(object, "amount")), text(object, "currency")));
    }

    private static ProviderRefund toRefund(SandboxApi.RefundBody answer) {
        return new ProviderRefund(answer.id(), refundStatus(answer.status()).orElseThrow(() ->
                new IllegalStateException("sandbox answered an unknown refund status " + answer.status())));
    }

    /** A sandbox refund's status; a sandbox refund is final at once. */
    private static Optional<RefundStatus> refundStatus(String value) {
        return switch (value) {
            case "SUCCEEDED" -> Optional.of(RefundStatus.SUCCEEDED);
            case "FAILED" -> Optional.of(RefundStatus.FAILED);
            default -> Optional.empty();
        };
    }

    /** A look-up the sandbox refused (4xx) asked for what it never made: a bug. */
    private <T> T lookUp(String what, Supplier<T> request) throws ProviderOutcomeUnknown {
        try {
            return call(what, request);
        } catch (SandboxRefused e) {
            throw new IllegalStateException("sandbox refused to " + what + " with " + e.status);
        }
    }

    private <T> T call(String what, Supplier<T> request) throws ProviderOutcomeUnknown, SandboxRefused {
        try {
            return request.get();
        } catch (WebApplicationException e) {
            int status = e.getResponse().getStatus();
            if (status >= 500) {
                throw new ProviderOutcomeUnknown("sandbox answered " + status + " to " + what, e);
            }
            throw new SandboxRefused(status);
        } catch (ProcessingException e) {
            throw new ProviderOutcomeUnknown("no answer from the sandbox to " + what + ": " + e.getMessage(), e);
        }
    }

    /** The sandbox answered with a 4xx: it took no action. */
    private static final class SandboxRefused extends Exception {
        private final int status;

        SandboxRefused(int status) {
            super(null, null, false, false);
            this.status = status;
        }
    }

    private static ProviderPayment toPayment(SandboxApi.PaymentBody answer) {
        return new ProviderPayment(answer.id(), paymentStatus(answer.status()).orElseThrow(() ->
                new IllegalStateException("sandbox answered an unknown status " + answer.status())));
    }

    /** A sandbox payment's status; only its events say CANCELED, for a payment the sandbox declined. */
    private static Optional<ProviderStatus> paymentStatus(String value) {
        return switch (value) {
            case "PENDING" -> Optional.of(ProviderStatus.PENDING);
            case "SUCCEEDED" -> Optional.of(ProviderStatus.SUCCEEDED);
            case "FAILED" -> Optional.of(ProviderStatus.FAILED);
            case "CANCELED" -> Optional.of(ProviderStatus.CANCELED);
            default -> Optional.empty();
        };
    }

    private static String text(JsonNode node, String field) throws WebhookRejected {
        JsonNode value = node.get(field);
        if (value == null || !value.isTextual() || value.asText().isBlank()) {
            throw new WebhookRejected("sandbox event lacks " + field);
        }
        return value.asText();
    }

    private SandboxApi api() {
        SandboxApi current = api;
        if (current == null) {
            synchronized (this) {
                if (api == null) {
                    long timeout = payments.providerTimeout().toMillis();
                    api = QuarkusRestClientBuilder.newBuilder()
                            .baseUri(sandbox.baseUrl())
                            .connectTimeout(timeout, TimeUnit.MILLISECONDS)
                            .readTimeout(timeout, TimeUnit.MILLISECONDS)
                            .build(SandboxApi.class);
                }
                current = api;
            }
        }
        return current;
    }

    @PreDestroy
    void close() {
        if (api != null) {
            api.close();
        }
    }
}
