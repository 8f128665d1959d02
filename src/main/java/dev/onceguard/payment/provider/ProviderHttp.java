package dev.onceguard.payment.provider;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.onceguard.platform.HttpClientSpans;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;

/**
 * The HTTP calls of an adapter that calls its provider's API itself (Stripe, YooKassa): an answer that never came (a
 * timeout, a broken connection, an interrupt) is an unknown outcome, never a failure. Which statuses leave the outcome
 * open is each provider's own rule, so the adapter checks them.
 */
public final class ProviderHttp {

    private final String provider;
    private final Duration timeout;
    private final HttpClientSpans spans;
    private final HttpClient http;

    /** @param enabled whether the adapter is configured; without a client, a call is a bug */
    public ProviderHttp(String provider, boolean enabled, Duration timeout, HttpClientSpans spans) {
        this.provider = provider;
        this.timeout = timeout;
        this.spans = spans;
        this.http = enabled ? HttpClient.newBuilder().connectTimeout(timeout).build() : null;
    }

    public HttpRequest.Builder request(URI uri) {
        return HttpRequest.newBuilder(uri).timeout(timeout);
    }

    public HttpResponse<String> send(HttpRequest request) throws ProviderOutcomeUnknown {
        if (http == null) {
            throw new IllegalStateException(provider + " is not configured");
        }
        try {
            return spans.send(http, request, HttpResponse.BodyHandlers.ofString());
        } catch (HttpTimeoutException e) {
            throw new ProviderOutcomeUnknown(provider + " did not answer within " + timeout, e);
        } catch (IOException e) {
            throw new ProviderOutcomeUnknown(provider + " connection failed: " + e.getClass().getSimpleName(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ProviderOutcomeUnknown("interrupted while waiting for " + provider, e);
        }
    }

    public JsonNode parse(ObjectMapper json, HttpResponse<String> answer) throws ProviderOutcomeUnknown {
        try {
            return json.readTree(answer.body());
        } catch (IOException e) {
            throw new ProviderOutcomeUnknown(provider + " answered " + answer.statusCode()
                    + " with a body that is not JSON", null);
        }
    }

    public static String textOrNull(JsonNode node) {
        return node.isTextual() && !node.asText().isBlank() ? node.asText() : null;
    }
}
