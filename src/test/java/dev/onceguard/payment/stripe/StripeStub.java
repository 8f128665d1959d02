package dev.onceguard.payment.stripe;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A local stand-in for the Stripe API on a random loopback port. It records every request and, unless a test sets
 * another {@link Responder}, answers like Stripe: {@code POST /v1/payment_intents} creates one PaymentIntent per
 * {@code Idempotency-Key} (a repeated key gets the first answer again), {@code GET /v1/payment_intents/{id}} returns it.
 */
final class StripeStub implements AutoCloseable {

    /** @param query the decoded query string, or null */
    record Recorded(String method, String path, Map<String, String> headers, String body, String query) {

        Map<String, String> form() {
            Map<String, String> fields = new HashMap<>();
            for (String pair : body.split("&")) {
                int eq = pair.indexOf('=');
                fields.put(URLDecoder.decode(pair.substring(0, eq), StandardCharsets.UTF_8),
                        URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
            }
            return fields;
        }
    }

    record Reply(int status, String body, long delayMillis) {

        static Reply json(int status, String body) {
            return new Reply(status, body, 0);
        }
    }

    interface Responder {
        Reply answer(Recorded request);
    }

    final List<Recorded> requests = new CopyOnWriteArrayList<>();
    final Map<String, String> intents = new ConcurrentHashMap<>();
    private final Map<String, Reply> byIdempotencyKey = new ConcurrentHashMap<>();
    private final AtomicInteger created = new AtomicInteger();
    private final HttpServer server;
    private final ExecutorService executor = Executors.newCachedThreadPool();
    private volatile String createdStatus = "succeeded";
    private volatile Responder responder = this::likeStripe;

    StripeStub() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.setExecutor(executor);
        server.createContext("/", this::handle);
        server.start();
    }

    URI baseUrl() {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
    }

    /** The status new PaymentIntents get, as the card behind the payment method would decide at Stripe. */
    void createWithStatus(String status) {
        createdStatus = status;
    }

    void answer(Responder responder) {
        this.responder = responder;
    }

    private Reply likeStripe(Recorded request) {
        if (request.method().equals("POST") && request.path().equals("/v1/payment_intents")) {
            return byIdempotencyKey.computeIfAbsent(request.headers().get("idempotency-key"), key -> {
                Map<String, String> form = request.form();
                String id = "pi_" + created.incrementAndGet() + "Lkd";
                String intent = StripeEvents.paymentIntent(id, createdStatus, Long.parseLong(form.get("amount")),
                        form.get("currency"));
                intents.put(id, intent);
                return Reply.json(200, intent);
            });
        }
        if (request.method().equals("GET") && request.path().startsWith("/v1/payment_intents/")) {
            String intent = intents.get(request.path().substring("/v1/payment_intents/".length()));
            return intent != null ? Reply.json(200, intent) : Reply.json(404,
                    "{\"error\":{\"type\":\"invalid_request_error\",\"code\":\"resource_missing\"}}");
        }
        return Reply.json(404, "{\"error\":{\"type\":\"invalid_request_error\"}}");
    }

    private void handle(HttpExchange exchange) throws IOException {
        Map<String, String> headers = new HashMap<>();
        exchange.getRequestHeaders().forEach((name, values) -> headers.put(name.toLowerCase(Locale.ROOT), values.get(0)));
        String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
        Recorded request = new Recorded(exchange.getRequestMethod(), exchange.getRequestURI().getPath(), headers, body,
                exchange.getRequestURI().getQuery());
        requests.add(request);
        Reply reply = responder.answer(request);
        try {
            Thread.sleep(reply.delayMillis()); // a slow provider is what this reply plays; not a poll
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        byte[] bytes = reply.body().getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", "application/json");
        exchange.getResponseHeaders().set("Request-Id", "req_stub" + requests.size());
        exchange.sendResponseHeaders(reply.status(), bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
        }
    }

    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
    }
}
