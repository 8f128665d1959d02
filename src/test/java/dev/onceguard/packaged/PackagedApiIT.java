package dev.onceguard.packaged;

import dev.onceguard.TestTokens;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusIntegrationTest;
import io.restassured.response.Response;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.UUID;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;

/** The packaged artifact's API: the catalog of its own file and nothing else, and the idempotency contract. */
@QuarkusIntegrationTest
@WithTestResource(PackagedArtifact.class)
class PackagedApiIT {

    private final String auth = TestTokens.bearer(TestTokens.newUser());

    @Test
    void theCatalogIsTheFilesAndHasNoDemoProducts() {
        List<Map<String, Object>> products = given().header("Authorization", auth).get("/api/products")
                .then().statusCode(200).extract().jsonPath().getList("$");

        assertThat(products).extracting(p -> p.get("productId")).containsExactly("it-handbook", "it-lamp");
        assertThat(products.get(1)).containsEntry("price", "45.50").containsEntry("available", 3);
    }

    @Test
    void anOrderIsCreatedOnceReplayedByteForByteAndItsKeyCannotBeReused() {
        String key = UUID.randomUUID().toString();
        String cart = "{\"items\":[{\"productId\":\"it-handbook\",\"quantity\":1}],\"currency\":\"EUR\"}";

        Response created = order(key, cart);
        Response replayed = order(key, cart);
        Response reused = order(key, cart.replace("\"quantity\":1", "\"quantity\":2"));

        assertThat(created.statusCode()).isEqualTo(201);
        assertThat(created.<String>path("status")).isEqualTo("AWAITING_PAYMENT");
        assertThat(replayed.statusCode()).isEqualTo(201);
        assertThat(replayed.header("Idempotent-Replayed")).isEqualTo("true");
        assertThat(replayed.asByteArray()).isEqualTo(created.asByteArray());
        assertThat(reused.statusCode()).isEqualTo(422);
        assertThat(reused.contentType()).startsWith("application/problem+json");
        assertThat(reused.<String>path("code")).isEqualTo("IDEMPOTENCY_KEY_REUSED");
    }

    private Response order(String key, String body) {
        return given().header("Authorization", auth).header("Idempotency-Key", key).contentType("application/json")
                .body(body).post("/api/orders");
    }
}
