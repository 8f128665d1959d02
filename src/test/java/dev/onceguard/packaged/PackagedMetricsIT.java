package dev.onceguard.packaged;

import dev.onceguard.TestTokens;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusIntegrationTest;
import org.junit.jupiter.api.Test;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;

/** The packaged artifact's Prometheus endpoint, with the HTTP and the service's own metrics in it. */
@QuarkusIntegrationTest
@WithTestResource(PackagedArtifact.class)
class PackagedMetricsIT {

    @Test
    void metricsShowTheRequestsAndTheServicesOwnMeters() {
        given().header("Authorization", TestTokens.bearer(TestTokens.newUser())).get("/api/products")
                .then().statusCode(200);

        String metrics = given().get("/q/metrics").then().statusCode(200).extract().asString();

        assertThat(metrics).containsPattern("http_server_requests_seconds_count\\{[^}]*uri=\"/api/products\"");
        assertThat(metrics).contains("onceguard_");
        given().get("/q/health/ready").then().statusCode(200);
    }
}
