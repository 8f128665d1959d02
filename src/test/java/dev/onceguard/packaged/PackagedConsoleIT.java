package dev.onceguard.packaged;

import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusIntegrationTest;
import io.restassured.response.Response;
import org.junit.jupiter.api.Test;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;

/** The packaged artifact's console: the login form, a session cookie, and a page rendered by its templates. */
@QuarkusIntegrationTest
@WithTestResource(PackagedArtifact.class)
class PackagedConsoleIT {

    @Test
    void anAdminSignsInAndSeesTheJobsPage() {
        Response anonymous = given().redirects().follow(false).get("/console/jobs");
        assertThat(anonymous.statusCode()).isEqualTo(302);
        assertThat(anonymous.header("Location")).endsWith("/console/login");
        assertThat(given().get("/console/login").then().statusCode(200).extract().asString())
                .contains("action=\"/j_security_check\"");

        Response signIn = given().redirects().follow(false)
                .formParam("j_username", PackagedArtifact.ADMIN)
                .formParam("j_password", PackagedArtifact.ADMIN_PASSWORD)
                .post("/j_security_check");
        assertThat(signIn.statusCode()).isEqualTo(302);
        assertThat(signIn.header("Location")).endsWith("/console");
        Response jobs = given().redirects().follow(false).cookies(signIn.cookies()).get("/console/jobs");
        assertThat(jobs.statusCode()).isEqualTo(200);
        assertThat(jobs.contentType()).startsWith("text/html");
        assertThat(jobs.asString()).contains("outbox-relay").contains(PackagedArtifact.ADMIN);
    }
}
