package dev.onceguard.sandbox;

import com.sun.net.httpserver.HttpServer;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.ToIntFunction;

/** A small HTTP server standing in for the service's webhook endpoint: it records every delivery and answers as told. */
final class WebhookReceiver implements AutoCloseable {

    record Delivery(Map<String, String> headers, byte[] body) {
        String eventId() {
            return headers.get("webhook-id");
        }
    }

    private final HttpServer server;
    private final ExecutorService threads = Executors.newFixedThreadPool(8);
    private final ConcurrentLinkedQueue<Delivery> received = new ConcurrentLinkedQueue<>();
    private volatile ToIntFunction<Delivery> answer = d -> 200;

    WebhookReceiver() throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.setExecutor(threads);
        server.createContext("/webhooks/sandbox", exchange -> {
            Map<String, String> headers = new HashMap<>();
            exchange.getRequestHeaders().forEach((name, values) -> headers.put(name.toLowerCase(), values.get(0)));
            byte[] body;
            try (InputStream in = exchange.getRequestBody()) {
                body = in.readAllBytes();
            }
            Delivery delivery = new Delivery(headers, body);
            received.add(delivery);
            int status = answer.applyAsInt(delivery);
            byte[] response = "{}".getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(status, response.length);
            exchange.getResponseBody().write(response);
            exchange.close();
        });
        server.start();
    }

    URI url() {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/webhooks/sandbox");
    }

    /** How to answer each delivery from now on (an HTTP status). */
    void answer(ToIntFunction<Delivery> answer) {
        this.answer = answer;
    }

    List<Delivery> of(String eventId) {
        return received.stream().filter(d -> eventId.equals(d.eventId())).toList();
    }

    List<Delivery> all() {
        return List.copyOf(received);
    }

    @Override
    public void close() {
        server.stop(0);
        threads.shutdownNow();
    }
}
