package dev.onceguard.packaged;

import dev.onceguard.TestTokens;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusIntegrationTest;
import io.restassured.response.Response;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.UUID;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A sandbox payment in the packaged artifact, through its REST client, webhook and outbox relay, to FULFILLED. The
 * artifact runs its jobs on their own schedules, as in production, so the test waits for the relay's run.
 */
@QuarkusIntegrationTest
@WithTestResource(PackagedArtifact.class)
class PackagedPaymentIT {

    private static final Duration RELAY_RUNS_WITHIN = Duration.ofSeconds(30);

    @Test
    void aSandboxPaymentTakesTheOrderToFulfilled() throws InterruptedException {
        String auth = TestTokens.bearer(TestTokens.newUser());
        String orderId = given().header("Authorization", auth).header("Idempotency-Key", UUID.randomUUID().toString())
                .contentType("application/json")
                .body("{\"items\":[{\"productId\":\"it-lamp\",\"quantity\":1}],\"currency\":\"EUR\"}")
                .post("/api/orders").then().statusCode(201).extract().path("orderId");

        given().header("Authorization", auth).header("Idempotency-Key", UUID.randomUUID().toString())
                .contentType("application/json").body("{\"paymentMethodToken\":\"tok_success\"}")
                .post("/api/orders/" + orderId + "/payments").then().statusCode(201);

        Response order = fulfilled(auth, orderId);
        assertThat(order.<List<String>>path("payments.status")).containsExactly("SUCCEEDED");
        assertThat(order.<Integer>path("fulfilment.notifications")).isEqualTo(1);
    }

    private static Response fulfilled(String auth, String orderId) {
        return await().pollInSameThread().alias("order " + orderId + " is FULFILLED").atMost(RELAY_RUNS_WITHIN)
                .pollInterval(Duration.ofMillis(250))
                .until(() -> given().header("Authorization", auth).get("/api/orders/" + orderId),
                        order -> "FULFILLED".equals(order.path("status")));
    }
}
