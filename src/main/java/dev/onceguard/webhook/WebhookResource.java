package dev.onceguard.webhook;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.onceguard.payment.PaymentProviders;
import dev.onceguard.payment.provider.PaymentProvider;
import dev.onceguard.payment.provider.ProviderEvent;
import dev.onceguard.payment.provider.ReadBackFailed;
import dev.onceguard.payment.provider.WebhookRejected;
import dev.onceguard.platform.JsonRequests;
import dev.onceguard.platform.Problem;
import dev.onceguard.platform.ProblemException;
import dev.onceguard.platform.RequestLimits;
import io.smallrye.mutiny.Uni;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.mutiny.core.Vertx;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import org.jboss.logging.Logger;

import java.io.IOException;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import io.quarkus.runtime.annotations.RegisterForReflection;

/**
 * {@code POST /webhooks/{provider}}: no user, the provider's signature authenticates the delivery (for YooKassa, whose
 * notifications are unsigned: its source address, then the read-back of its object through the provider's API). The
 * signature is checked over the exact bytes received before anything else reads them; a delivery that fails it
 * changes nothing but a metric.
 */
@RegisterForReflection
@Path("/webhooks/{provider}")
public class WebhookResource {

    private static final Logger LOG = Logger.getLogger(WebhookResource.class);
    /** Event ids, types and provider payment ids are indexed: longer values could not be recorded. */
    static final int MAX_ID_LENGTH = 255;

    public record Answer(String status) {
    }

    private final PaymentProviders providers;
    private final WebhookInbox inbox;
    private final WebhookMetrics metrics;
    private final JsonRequests json;
    private final ObjectMapper mapper;

    public WebhookResource(PaymentProviders providers, WebhookInbox inbox, WebhookMetrics metrics,
                           JsonRequests json, ObjectMapper mapper) {
        this.mapper = mapper;
        this.providers = providers;
        this.inbox = inbox;
        this.metrics = metrics;
        this.json = json;
    }

    /**
     * Called on the event loop that read the body. The checks and the reading of the event wait for nothing, and a
     * duplicate of an event this replica has seen settled is answered right there; everything else (a provider's
     * read-back, the inbox's statements) runs on a worker in the request's Vert.x context.
     */
    @POST
    @Consumes(MediaType.WILDCARD)
    @Produces(MediaType.APPLICATION_JSON)
    public Uni<Answer> deliver(@PathParam("provider") String name, @Context HttpServerRequest http, byte[] body) {
        PaymentProvider provider = providers.named(name).orElseThrow(() -> new ProblemException(Problem.of(404,
                "PROVIDER_NOT_FOUND", "Unknown payment provider", "No enabled payment provider has this name.")));
        byte[] bytes = body == null ? new byte[0] : body;
        if (bytes.length > RequestLimits.MAX_BODY_BYTES) {
            throw new ProblemException(RequestLimits.payloadTooLarge());
        }
        String source = http.remoteAddress() == null ? null : http.remoteAddress().hostAddress();
        try {
            provider.verifySource(source);
        } catch (WebhookRejected e) {
            throw unauthentic(provider, e, Problem.of(401, "WEBHOOK_SOURCE_NOT_ALLOWED", "Webhook source not allowed",
                    "This provider's notifications are accepted only from its own networks."));
        }
        try {
            provider.verifyWebhook(bytes, lowerCaseHeaders(http));
        } catch (WebhookRejected e) {
            throw unauthentic(provider, e, Problem.of(401, "WEBHOOK_SIGNATURE_INVALID", "Webhook signature invalid",
                    "The delivery is not authentic or too old: " + e.getMessage()));
        }
        // An authentic body that is not JSON is MALFORMED_JSON, one with a string PostgreSQL cannot store is
        // VALIDATION_FAILED; only then is it read as the provider's event, from this one reading of it.
        JsonNode tree = json.tree(bytes);
        if (provider.readsBack()) {
            return onAWorker(() -> readBackAndReceive(provider, bytes, source));
        }
        ProviderEvent event = read(provider, tree);
        return inbox.duplicateFromMemory(provider.name(), event)
                .map(duplicate -> Uni.createFrom().item(new Answer(duplicate.label())))
                .orElseGet(() -> onAWorker(() -> received(provider, event, bytes)));
    }

    private static Uni<Answer> onAWorker(Callable<Answer> delivery) {
        return Vertx.currentContext().executeBlocking(delivery, false);
    }

    private Answer readBackAndReceive(PaymentProvider provider, byte[] bytes, String source) {
        byte[] kept;
        try {
            kept = provider.readBack(bytes, source);
        } catch (ReadBackFailed e) {
            return keptUnconfirmed(provider, e);
        }
        return received(provider, read(provider, keptTree(provider, kept)), kept);
    }

    private Answer received(PaymentProvider provider, ProviderEvent event, byte[] kept) {
        DeliveryOutcome outcome = inbox.receive(provider.name(), event, kept);
        if (outcome == DeliveryOutcome.FAILED) {
            throw new ProblemException(Problem.of(500, "WEBHOOK_PROCESSING_FAILED", "Webhook processing failed",
                    "The event was recorded but applying it failed; deliver it again later."));
        }
        return new Answer(outcome.label());
    }

    private ProblemException unauthentic(PaymentProvider provider, WebhookRejected rejected, Problem problem) {
        metrics.count(provider.name(), DeliveryOutcome.REJECTED_SIGNATURE);
        LOG.warnf("webhook %s rejected: %s", provider.name(), rejected.getMessage());
        return new ProblemException(problem);
    }

    /** A notification the provider's API did not confirm: kept as FAILED, for the provider's next delivery of it. */
    private Answer keptUnconfirmed(PaymentProvider provider, ReadBackFailed failure) {
        ProviderEvent hint = failure.hint();
        if (namesTooLong(hint)) {
            throw new ProblemException(Problem.of(400, "WEBHOOK_EVENT_INVALID", "Webhook event invalid",
                    "The event could not be read: its id, type or payment id is longer than " + MAX_ID_LENGTH
                            + " characters"));
        }
        inbox.keepUnconfirmed(provider.name(), hint, failure.kept(), failure.getMessage());
        throw new ProblemException(Problem.of(500, "WEBHOOK_READ_BACK_FAILED", "Webhook not confirmed",
                "The notification was kept, but reading its object back through the provider's API did not confirm"
                        + " it yet; deliver it again later."));
    }

    /** What a provider that reads a notification back (YooKassa) keeps instead of it, as JSON. */
    private JsonNode keptTree(PaymentProvider provider, byte[] kept) {
        try {
            return mapper.readTree(kept);
        } catch (IOException e) {
            LOG.warnf("webhook %s: what the read-back kept is not JSON", provider.name());
            throw new ProblemException(Problem.of(400, "WEBHOOK_EVENT_INVALID", "Webhook event invalid",
                    "The event could not be read: the body is not JSON"));
        }
    }

    private static ProviderEvent read(PaymentProvider provider, JsonNode body) {
        try {
            ProviderEvent event = provider.parseEvent(body);
            if (event.eventId() == null || event.eventId().isBlank() || event.type() == null) {
                throw new WebhookRejected("the event has no id or no type");
            }
            if (namesTooLong(event)) {
                throw new WebhookRejected("the event's id, type or payment id is longer than " + MAX_ID_LENGTH + " characters");
            }
            return event;
        } catch (WebhookRejected e) {
            LOG.warnf("webhook %s: authentic delivery not readable: %s", provider.name(), e.getMessage());
            throw new ProblemException(Problem.of(400, "WEBHOOK_EVENT_INVALID", "Webhook event invalid",
                    "The event could not be read: " + e.getMessage()));
        }
    }

    private static boolean namesTooLong(ProviderEvent event) {
        return Stream.of(event.eventId(), event.type(), event.providerPaymentId())
                .anyMatch(id -> id != null && id.length() > MAX_ID_LENGTH);
    }

    private static Map<String, String> lowerCaseHeaders(HttpServerRequest http) {
        Map<String, String> headers = new HashMap<>();
        http.headers().forEach(header -> headers.putIfAbsent(header.getKey().toLowerCase(Locale.ROOT), header.getValue()));
        return headers;
    }
}
