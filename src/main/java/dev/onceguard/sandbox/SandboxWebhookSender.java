package dev.onceguard.sandbox;

import dev.onceguard.platform.HttpClientSpans;
import dev.onceguard.platform.StandardWebhooksSignature;
import dev.onceguard.platform.TraceContexts;
import jakarta.enterprise.context.ApplicationScoped;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * POSTs one webhook delivery, signed with the Standard Webhooks headers, in the trace of the payment that caused it;
 * any 2xx answer counts as delivered.
 */
@ApplicationScoped
public class SandboxWebhookSender {

    /** How one delivery went: delivered, or the reason it was not (never containing the secret). */
    public record Attempt(boolean delivered, String error) {
    }

    private final SandboxWebhookSecret secret;
    private final SandboxConfig config;
    private final HttpClient http;
    private final HttpClientSpans spans;

    public SandboxWebhookSender(SandboxWebhookSecret secret, SandboxConfig config, HttpClientSpans spans) {
        this.secret = secret;
        this.config = config;
        this.spans = spans;
        this.http = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(config.deliveryTimeout())
                .followRedirects(HttpClient.Redirect.NEVER)
                .build();
    }

    /** @param traceparent the stored trace context of the payment the event is about (null: none known) */
    public CompletableFuture<Attempt> send(URI target, String eventId, String body, Instant now, String traceparent) {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        long timestamp = now.getEpochSecond();
        HttpRequest request = HttpRequest.newBuilder(target)
                .timeout(config.deliveryTimeout())
                .header("Content-Type", "application/json")
                .header("User-Agent", "onceguard-sandbox")
                .header(StandardWebhooksSignature.ID, eventId)
                .header(StandardWebhooksSignature.TIMESTAMP, Long.toString(timestamp))
                .header(StandardWebhooksSignature.SIGNATURE,
                        StandardWebhooksSignature.sign(eventId, timestamp, bytes, secret.value()))
                .POST(HttpRequest.BodyPublishers.ofByteArray(bytes))
                .build();
        return spans.sendAsync(http, request, HttpResponse.BodyHandlers.discarding(),
                TraceContexts.continuing(traceparent)).handle((response, failure) -> {
            if (failure != null) {
                Throwable cause = failure instanceof CompletionException && failure.getCause() != null
                        ? failure.getCause() : failure;
                return new Attempt(false, cause.getClass().getSimpleName()
                        + (cause.getMessage() == null ? "" : ": " + cause.getMessage()));
            }
            return response.statusCode() / 100 == 2 ? new Attempt(true, null)
                    : new Attempt(false, "HTTP " + response.statusCode());
        });
    }
}
