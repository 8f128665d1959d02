package dev.onceguard;

import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import io.restassured.response.Response;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.UUID;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The whole chain through HTTP only, as a client sees it: order, payment at the sandbox provider, its signed
 * webhooks (here three concurrent deliveries of each), the outbox relay and the effects, until FULFILLED.
 */
@QuarkusTest
class CheckoutJourneyTest {

    @Inject
    PaidOrders paidOrders;

    @Test
    void fromOrderToFulfilledWithDuplicateWebhooks() {
        String user = TestTokens.newUser();
        String auth = TestTokens.bearer(user);
        String orderId = given().header("Authorization", auth).header("Idempotency-Key", UUID.randomUUID().toString())
                .contentType("application/json")
                .body("{\"items\":[{\"productId\":\"p-184\",\"quantity\":2},{\"productId\":\"p-310\",\"quantity\":1}],"
                        + "\"currency\":\"RUB\"}")
                .post("/api/orders").then().statusCode(201).extract().path("orderId");

        given().header("Authorization", auth).header("Idempotency-Key", UUID.randomUUID().toString())
                .contentType("application/json").body("{\"paymentMethodToken\":\"tok_duplicate_webhooks\"}")
                .post("/api/orders/" + orderId + "/payments").then().statusCode(201);

        paidOrders.relayUntilIdle();

        Response order = given().header("Authorization", auth).get("/api/orders/" + orderId);
        assertThat(order.<String>path("status")).isEqualTo("FULFILLED");
        assertThat(order.<List<String>>path("payments.status")).containsExactly("SUCCEEDED");
        assertThat(order.<List<String>>path("fulfilment.licenses.licenseId")).hasSize(1);
        assertThat(order.<Integer>path("fulfilment.notifications")).isEqualTo(1);
        assertThat(order.<Integer>path("fulfilment.loyaltyPoints")).isPositive();
        assertThat(given().get("/sandbox/v1/payments?orderId=" + orderId).then().extract().<List<Object>>path("data"))
                .hasSize(1);
    }
}
