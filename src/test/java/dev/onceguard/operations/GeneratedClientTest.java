package dev.onceguard.operations;

import dev.onceguard.TestTokens;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;

import static io.restassured.RestAssured.when;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * An integrator's view of /q/openapi: openapi-generator (typescript-fetch) makes a client of the served document,
 * {@code tsc --strict} compiles it with a script that creates an order, replays it and reuses its key, and the script
 * runs against this test service. The npm packages and the generator's jar stay in target/ between runs.
 */
@QuarkusTest
class GeneratedClientTest {

    private static final Path PROJECT = Path.of("target", "openapi-client");
    private static final List<String> FILES = List.of("package.json", "openapitools.json", "tsconfig.json", "check.ts");
    private static final ExternalTool NPM = new ExternalTool("npm", "install Node.js and npm (apt-get install -y npm)");
    private static final ExternalTool NPX = new ExternalTool("npx", "install Node.js and npm (apt-get install -y npm)");
    private static final ExternalTool NODE = new ExternalTool("node", "install Node.js (apt-get install -y nodejs)");

    @TestHTTPResource("/")
    URL root;

    @Test
    void aGeneratedTypeScriptClientCompilesStrictlyAndCreatesReplaysAndIsRefusedAReusedKey() throws IOException {
        NPX.assumeInstalled("The generated OpenAPI client");
        Files.createDirectories(PROJECT);
        for (String file : FILES) {
            Files.copy(Path.of("target", "test-classes", "openapi-client", file), PROJECT.resolve(file),
                    StandardCopyOption.REPLACE_EXISTING);
        }
        Files.writeString(PROJECT.resolve("served.json"), when().get("/q/openapi?format=json").then().statusCode(200)
                .extract().asString());

        succeeds(NPM.run(PROJECT, 600, "install", "--no-audit", "--no-fund", "--cache", "../npm-cache"));
        succeeds(NPX.run(PROJECT, 600, "--no-install", "openapi-generator-cli", "generate", "-g", "typescript-fetch",
                "-i", "served.json", "-o", "client"));
        succeeds(NPX.run(PROJECT, 300, "--no-install", "tsc", "-p", "tsconfig.json"));
        ExternalTool.Result run = NODE.run(PROJECT, 60, "out/check.js", root.toString().replaceAll("/$", ""),
                TestTokens.bearer(TestTokens.newUser()).substring("Bearer ".length()));

        succeeds(run);
        assertThat(run.output()).contains("create 201 AWAITING_PAYMENT", "replay 201 Idempotent-Replayed=true",
                "reuse 422 IDEMPOTENCY_KEY_REUSED");
    }

    private static void succeeds(ExternalTool.Result result) {
        assertThat(result.exitCode()).as(result.output()).isZero();
    }
}
