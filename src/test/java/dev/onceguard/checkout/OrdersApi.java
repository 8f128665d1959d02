package dev.onceguard.checkout;

import dev.onceguard.TestTokens;
import io.restassured.RestAssured;
import io.restassured.response.Response;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

import static io.restassured.RestAssured.given;

/** The orders API as a client calls it, for tests. */
public final class OrdersApi {

    public static final String ONE_EBOOK = "{\"items\":[{\"productId\":\"p-184\",\"quantity\":1}],\"currency\":\"RUB\"}";
    static final String TWO_EBOOKS = "{\"items\":[{\"productId\":\"p-184\",\"quantity\":2}],\"currency\":\"RUB\"}";

    private OrdersApi() {
    }

    public static Response createOrder(String userId, String key, String body) {
        var request = given().header("Authorization", TestTokens.bearer(userId)).contentType("application/json").body(body);
        if (key != null) {
            request.header("Idempotency-Key", key);
        }
        return request.post("/api/orders");
    }

    /**
     * POST /api/orders framed as given, on a client of its own (a client with an HTTP/1.1 connection open would not
     * upgrade it to HTTP/2): for what RestAssured cannot send, an empty key header, a chunked body or HTTP/2.
     */
    static HttpResponse<String> postOrder(String userId, String key, HttpClient.Version version,
                                          HttpRequest.BodyPublisher body) throws IOException, InterruptedException {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://localhost:" + RestAssured.port + "/api/orders"))
                .header("Authorization", TestTokens.bearer(userId))
                .header("Idempotency-Key", key)
                .header("Content-Type", "application/json")
                .POST(body).build();
        return HttpClient.newBuilder().version(version).build().send(request, HttpResponse.BodyHandlers.ofString());
    }

    static Response getOrder(String userId, String orderId) {
        return given().header("Authorization", TestTokens.bearer(userId)).get("/api/orders/" + orderId);
    }
}
