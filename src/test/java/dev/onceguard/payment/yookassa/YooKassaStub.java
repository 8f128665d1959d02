package dev.onceguard.payment.yookassa;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * A local stand-in for YooKassa's API v3 on a random loopback port, answering with the shapes recorded in
 * {@code src/test/resources/yookassa} (see the README there for where each comes from). It records every request and,
 * unless a test sets another {@link Responder}, answers like YooKassa: {@code POST /v3/payments} with the shop's
 * HTTP Basic credentials creates one payment per {@code Idempotence-Key} (a repeated key gets the first payment again,
 * in its current state), {@code GET /v3/payments/{id}} returns it as it is now; refunds likewise
 * ({@code POST /v3/refunds}, {@code GET /v3/refunds/{id}}, {@code GET /v3/refunds?payment_id=}). A test moves a payment with
 * {@link #settle}, as the customer and the bank would.
 */
public final class YooKassaStub implements AutoCloseable {

    public static final String SHOP_ID = "506751";
    public static final String SECRET_KEY = "test_Fh8hUAVVBGUGbjmlzba6TB0iyUbos_lueTHE-axOwM0";
    private static final ObjectMapper JSON = new ObjectMapper();

    public record Recorded(String method, String path, String rawQuery, Map<String, String> headers, String body) {

        public Map<String, String> query() {
            Map<String, String> parameters = new HashMap<>();
            if (rawQuery != null) {
                for (String pair : rawQuery.split("&")) {
                    int equals = pair.indexOf('=');
                    if (equals > 0) {
                        parameters.put(pair.substring(0, equals),
                                URLDecoder.decode(pair.substring(equals + 1), StandardCharsets.UTF_8));
                    }
                }
            }
            return parameters;
        }

        public JsonNode json() {
            try {
                return JSON.readTree(body);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    /** An answer; {@code delayMillis} holds it back, as a slow provider would (the payment is made all the same). */
    public record Reply(int status, String body, long delayMillis) {

        public static Reply json(int status, String body) {
            return new Reply(status, body, 0);
        }
    }

    public interface Responder {
        Reply answer(Recorded request, YooKassaStub stub);
    }

    public final List<Recorded> requests = new CopyOnWriteArrayList<>();
    private final Map<String, ObjectNode> payments = new ConcurrentHashMap<>();
    private final Map<String, String> paymentByKey = new ConcurrentHashMap<>();
    private final Map<String, ObjectNode> refundByKey = new ConcurrentHashMap<>();
    private final HttpServer server;
    private final ExecutorService executor = Executors.newCachedThreadPool();
    private volatile Responder responder = YooKassaStub::likeYooKassa;

    public YooKassaStub() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.setExecutor(executor);
        server.createContext("/", this::handle);
        server.start();
    }

    /** The API root as {@code onceguard.yookassa.base-url} names it. */
    public String baseUrl() {
        return "http://127.0.0.1:" + server.getAddress().getPort() + "/v3";
    }

    public void answer(Responder responder) {
        this.responder = responder;
    }

    public void answerLikeYooKassa() {
        this.responder = YooKassaStub::likeYooKassa;
    }

    /** A recorded shape from {@code src/test/resources/yookassa}. */
    public static ObjectNode shape(String file) {
        try (InputStream in = YooKassaStub.class.getResourceAsStream("/yookassa/" + file)) {
            return (ObjectNode) JSON.readTree(in);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Puts a payment the stub knows, as if it had been created with these amount and metadata. */
    public ObjectNode put(String id, String status, String amount, String currency, String paymentId, String orderId) {
        ObjectNode payment = shape("payment-pending-redirect.json");
        payment.put("id", id);
        payment.put("created_at", Instant.now().toString());
        ((ObjectNode) payment.get("amount")).put("value", amount).put("currency", currency);
        ((ObjectNode) payment.get("metadata")).put("payment_id", paymentId).put("order_id", orderId);
        ((ObjectNode) payment.get("confirmation")).put("confirmation_url",
                "https://yoomoney.ru/api-pages/v2/payment-confirm/epl?orderId=" + id);
        payments.put(id, payment);
        return settle(id, status);
    }

    /** Moves a payment to {@code status} as YooKassa would show it (a canceled one with its cancellation details). */
    public ObjectNode settle(String id, String status) {
        ObjectNode payment = payments.get(id);
        payment.put("status", status);
        payment.put("paid", status.equals("succeeded") || status.equals("waiting_for_capture"));
        if (!status.equals("pending")) {
            payment.remove("confirmation");
        }
        if (status.equals("canceled")) {
            payment.set("cancellation_details", shape("payment-canceled.json").get("cancellation_details"));
        }
        return payment;
    }

    public ObjectNode payment(String id) {
        return payments.get(id);
    }

    /** The payments created with this key: one, however often it was sent. */
    public long paymentsWithKey(String idempotenceKey) {
        return paymentByKey.containsKey(idempotenceKey) ? 1 : 0;
    }

    public long postsWithKey(String idempotenceKey) {
        return requests.stream().filter(r -> r.method().equals("POST") && idempotenceKey.equals(r.headers()
                .get("idempotence-key"))).count();
    }

    public long readsOf(String paymentId) {
        return requests.stream().filter(r -> r.method().equals("GET") && r.path().equals("/v3/payments/" + paymentId))
                .count();
    }

    public long requestsMentioning(String text) {
        return requests.stream().filter(r -> r.path().contains(text) || r.body().contains(text)).count();
    }

    /** What YooKassa does with the request; also the default {@link Responder}. */
    public static Reply likeYooKassa(Recorded request, YooKassaStub stub) {
        String expected = "Basic " + Base64.getEncoder().encodeToString((SHOP_ID + ":" + SECRET_KEY)
                .getBytes(StandardCharsets.UTF_8));
        if (!expected.equals(request.headers().get("authorization"))) {
            return Reply.json(401, "{\"type\":\"error\",\"id\":\"" + UUID.randomUUID()
                    + "\",\"code\":\"invalid_credentials\",\"description\":\"Authentication by given credentials failed\"}");
        }
        if (request.method().equals("POST") && request.path().equals("/v3/payments")) {
            String key = request.headers().get("idempotence-key");
            if (key == null || key.isBlank() || key.length() > 64) {
                ObjectNode error = shape("error-invalid-request.json");
                error.put("description", "Idempotence-Key is required and at most 64 characters long");
                return Reply.json(400, error.toString());
            }
            String id = stub.paymentByKey.computeIfAbsent(key, k -> {
                JsonNode body = request.json();
                String created = UUID.randomUUID().toString();
                stub.put(created, "pending", body.path("amount").path("value").asText(),
                        body.path("amount").path("currency").asText(),
                        body.path("metadata").path("payment_id").asText(),
                        body.path("metadata").path("order_id").asText());
                return created;
            });
            return Reply.json(200, stub.payments.get(id).toString());
        }
        if (request.method().equals("GET") && request.path().startsWith("/v3/payments/")) {
            ObjectNode payment = stub.payments.get(request.path().substring("/v3/payments/".length()));
            return payment != null ? Reply.json(200, payment.toString()) : Reply.json(404, "{\"type\":\"error\",\"id\":\""
                    + UUID.randomUUID() + "\",\"code\":\"not_found\",\"description\":\"Payment not found\"}");
        }
        if (request.method().equals("POST") && request.path().equals("/v3/refunds")) {
            return stub.refund(request);
        }
        if (request.method().equals("GET") && request.path().startsWith("/v3/refunds/")) {
            ObjectNode refund = stub.refund(request.path().substring("/v3/refunds/".length()));
            return refund != null ? Reply.json(200, refund.toString()) : Reply.json(404, "{\"type\":\"error\",\"id\":\""
                    + UUID.randomUUID() + "\",\"code\":\"not_found\",\"description\":\"Refund not found\"}");
        }
        if (request.method().equals("GET") && request.path().equals("/v3/refunds")) {
            ObjectNode list = JSON.createObjectNode().put("type", "list");
            stub.refundByKey.values().stream()
                    .filter(r -> r.path("payment_id").asText().equals(request.query().get("payment_id")))
                    .forEach(list.putArray("items")::add);
            if (!list.has("items")) {
                list.putArray("items");
            }
            return Reply.json(200, list.toString());
        }
        return Reply.json(404, "{\"type\":\"error\",\"code\":\"not_found\"}");
    }

    /** A refund of a succeeded payment, never above what is left of it; the same key answers the same refund. */
    private synchronized Reply refund(Recorded request) {
        String key = request.headers().get("idempotence-key");
        ObjectNode known = refundByKey.get(key);
        if (known != null) {
            return Reply.json(200, known.toString());
        }
        JsonNode body = request.json();
        ObjectNode payment = payments.get(body.path("payment_id").asText());
        BigDecimal amount = new BigDecimal(body.path("amount").path("value").asText());
        BigDecimal refunded = refundByKey.values().stream()
                .filter(r -> r.path("payment_id").asText().equals(body.path("payment_id").asText()))
                .map(r -> new BigDecimal(r.path("amount").path("value").asText()))
                .reduce(BigDecimal.ZERO, BigDecimal::add);
        if (payment == null || !payment.path("status").asText().equals("succeeded")
                || refunded.add(amount).compareTo(new BigDecimal(payment.path("amount").path("value").asText())) > 0) {
            ObjectNode error = shape("error-invalid-request.json");
            error.put("description", "The refund amount is more than the payment has left to refund");
            return Reply.json(400, error.toString());
        }
        ObjectNode refund = shape("refund-succeeded.json");
        refund.put("id", UUID.randomUUID().toString());
        refund.put("payment_id", body.path("payment_id").asText());
        refund.put("created_at", Instant.now().toString());
        refund.set("amount", body.path("amount"));
        refund.put("description", body.path("description").asText());
        refundByKey.put(key, refund);
        return Reply.json(200, refund.toString());
    }

    /** A refund the stub made, as the API shows it now; null when there is none with this id. */
    public ObjectNode refund(String refundId) {
        return refundByKey.values().stream().filter(r -> r.path("id").asText().equals(refundId)).findFirst()
                .orElse(null);
    }

    /** Moves a refund to {@code status} ({@code pending}, {@code succeeded} or {@code canceled}) as YooKassa would. */
    public ObjectNode settleRefund(String refundId, String status) {
        return refund(refundId).put("status", status);
    }

    /** The refunds made of one payment: one per key, however often it was sent. */
    public long refundsOf(String providerPaymentId) {
        return refundsMadeOf(providerPaymentId).size();
    }

    public List<ObjectNode> refundsMadeOf(String providerPaymentId) {
        return refundByKey.values().stream().filter(r -> r.path("payment_id").asText().equals(providerPaymentId))
                .toList();
    }

    private void handle(HttpExchange exchange) throws IOException {
        Map<String, String> headers = new HashMap<>();
        exchange.getRequestHeaders().forEach((name, values) -> headers.put(name.toLowerCase(Locale.ROOT), values.get(0)));
        String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
        Recorded request = new Recorded(exchange.getRequestMethod(), exchange.getRequestURI().getPath(),
                exchange.getRequestURI().getRawQuery(), headers, body);
        requests.add(request);
        Reply reply = responder.answer(request, this);
        try {
            Thread.sleep(reply.delayMillis()); // a slow provider is what this reply plays; not a poll
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        byte[] bytes = reply.body().getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", "application/json");
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
