package dev.onceguard.checkout;

import dev.onceguard.TestTokens;
import io.restassured.response.Response;

import static io.restassured.RestAssured.given;

/** The orders API as a client calls it, for tests. */
final class OrdersApi {

    static final String ONE_EBOOK = "{\"items\":[{\"productId\":\"p-184\",\"quantity\":1}],\"currency\":\"RUB\"}";
    static final String TWO_EBOOKS = "{\"items\":[{\"productId\":\"p-184\",\"quantity\":2}],\"currency\":\"RUB\"}";

    private OrdersApi() {
    }

    static Response createOrder(String userId, String key, String body) {
        var request = given().header("Authorization", TestTokens.bearer(userId)).contentType("application/json").body(body);
        if (key != null) {
            request.header("Idempotency-Key", key);
        }
        return request.post("/api/orders");
    }

    static Response getOrder(String userId, String orderId) {
        return given().header("Authorization", TestTokens.bearer(userId)).get("/api/orders/" + orderId);
    }
}
