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
import java.util.function.Function;

/**
 * The HTTP calls of an adapter that calls its provider's API itself (Stripe, YooKassa): an answer that never came (a
 * timeout, a broken connection, an interrupt) is an unknown outcome, never a failure. Which statuses leave the outcome
 * open is each provider's own rule, which the adapter gives as {@code openOutcome}.
 */
public final class ProviderHttp {

    private final String provider;
    private final Duration timeout;
    private final HttpClientSpans spans;
    private final HttpClient http;
    private final ObjectMapper json;
    private final Function<HttpResponse<String>, String> openOutcome;

    /**
     * @param enabled     whether the adapter is configured; without a client, a call is a bug
     * @param openOutcome why an answer leaves the call's outcome open, or null when it does not
     */
    public ProviderHttp(String provider, boolean enabled, Duration timeout, HttpClientSpans spans, ObjectMapper json,
                        Function<HttpResponse<String>, String> openOutcome) {
        this.provider = provider;
        this.timeout = timeout;
        this.spans = spans;
        this.http = enabled ? HttpClient.newBuilder().connectTimeout(timeout).build() : null;
        this.json = json;
        this.openOutcome = openOutcome;
    }

    public HttpRequest.Builder request(URI uri) {
        return HttpRequest.newBuilder(uri).timeout(timeout);
    }

    public HttpResponse<String> send(HttpRequest request) throws ProviderOutcomeUnknown {
        if (http == null) {
            throw new IllegalStateException(provider + " is not configured");
        }
        HttpResponse<String> answer;
        try {
            answer = spans.send(http, request, HttpResponse.BodyHandlers.ofString());
        } catch (HttpTimeoutException e) {
            throw new ProviderOutcomeUnknown(provider + " did not answer within " + timeout, e);
        } catch (IOException e) {
            throw new ProviderOutcomeUnknown(provider + " connection failed: " + e.getClass().getSimpleName(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ProviderOutcomeUnknown("interrupted while waiting for " + provider, e);
        }
        String open = openOutcome.apply(answer);
        if (open != null) {
            throw new ProviderOutcomeUnknown(open, null);
        }
        return answer;
    }

    /** A look-up: anything but 200 leaves the answer unknown ({@code what} names it in the message). */
    public JsonNode lookUp(HttpRequest request, String what) throws ProviderOutcomeUnknown {
        HttpResponse<String> answer = send(request);
        if (answer.statusCode() != 200) {
            throw new ProviderOutcomeUnknown(provider + " answered " + answer.statusCode() + what, null);
        }
        return parse(answer);
    }

    public JsonNode parse(HttpResponse<String> answer) throws ProviderOutcomeUnknown {
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
