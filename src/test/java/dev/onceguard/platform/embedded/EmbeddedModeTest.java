package dev.onceguard.platform.embedded;

import dev.onceguard.PaidOrders;
import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.restassured.RestAssured;
import io.restassured.response.Response;
import io.smallrye.config.PropertiesConfigSource;
import io.smallrye.config.SmallRyeConfigBuilder;
import jakarta.inject.Inject;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import java.time.Duration;
import java.util.Objects;

import static io.restassured.RestAssured.given;
import static java.nio.file.attribute.PosixFilePermission.OWNER_READ;
import static java.nio.file.attribute.PosixFilePermission.OWNER_WRITE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasSize;

/**
 * The service in embedded mode, set up as the launcher does it (embedded database and demo access in a fresh data
 * folder), in the {@code prod} profile that {@code java -jar} runs, so that the test profile's users, key and sandbox
 * switch are not there to help: the banner's curl line, pasted into a shell, creates an order; the generated admin
 * login signs into the console as an admin; the sandbox takes a payment.
 */
@QuarkusTest
@TestProfile(EmbeddedModeTest.Embedded.class)
class EmbeddedModeTest {

    private static final Pattern CURL_LINE = Pattern.compile("(?m)^curl .*$");

    public static class Embedded implements QuarkusTestProfile {
        @Override
        public String getConfigProfile() {
            return "prod";
        }

        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of(
                    // A test listens on the test port, not on quarkus.http.port, which the sandbox addresses follow.
                    "onceguard.sandbox.base-url", "http://localhost:${quarkus.http.test-port:8081}/sandbox/v1",
                    "onceguard.sandbox.webhook-url", "http://localhost:${quarkus.http.test-port:8081}/webhooks/sandbox",
                    // In a test (never under java -jar) smallrye-jwt makes up a key pair and issuer of its own when
                    // none is configured at build time, which comes before the resource below; these name embedded
                    // mode's own key (in the data folder the resource sets) and issuer, and take precedence over it.
                    "smallrye.jwt.verify.key.location",
                    "${" + EmbeddedMode.DATA_FOLDER + ":data}/" + DemoAccess.SIGNING_KEY_FILE,
                    "mp.jwt.verify.issuer", DemoAccess.ISSUER,
                    // the outbox relay runs when the test says so, as in the test profile
                    "onceguard.jobs.outbox-relay.every", "off");
        }

        @Override
        public List<TestResourceEntry> testResources() {
            return List.of(new TestResourceEntry(InFreshDataFolder.class));
        }
    }

    public static class InFreshDataFolder implements QuarkusTestResourceLifecycleManager {

        private Path folder;
        private EmbeddedMode embedded;

        @Override
        public Map<String, String> start() {
            try {
                folder = Files.createTempDirectory("onceguard-embedded-test");
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            // as the launcher does it: the configuration names no database and no interface
            embedded = EmbeddedMode.startIfWanted(new SmallRyeConfigBuilder()
                    .withSources(new PropertiesConfigSource(
                            Map.of(EmbeddedMode.DATA_FOLDER, folder.resolve("data").toString()), "environment", 300))
                    .build()).orElseThrow();
            Map<String, String> config = new HashMap<>(embedded.settings());
            // a test listens on quarkus.http.test-host: there, where embedded mode told the service to listen
            config.put("quarkus.http.test-host", embedded.settings().get(EmbeddedMode.HTTP_HOST));
            config.put("quarkus.log.file.enabled", "true");
            config.put("quarkus.log.file.path", folder.resolve("service.log").toString());
            return config;
        }

        @Override
        public void stop() {
            embedded.close();
            try (Stream<Path> paths = Files.walk(folder)) {
                paths.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    @ConfigProperty(name = "quarkus.log.file.path")
    Path serviceLog;

    @ConfigProperty(name = EmbeddedMode.DATA_FOLDER)
    Path dataFolder;

    @Inject
    PaidOrders paidOrders;

    @Test
    void theBannersCurlCreatesAnOrderAndRunTwiceReplaysIt() throws Exception {
        String curl = bannerCurlLine();

        String first = runInShell(curl);
        String second = runInShell(curl);

        assertThat(first).startsWith("HTTP/1.1 201").doesNotContain("Idempotent-Replayed");
        assertThat(second).startsWith("HTTP/1.1 201").contains("Idempotent-Replayed: true");
        assertThat(body(second)).isEqualTo(body(first));
    }

    @Test
    void theBannerPrintsTheDemoTokenOnALineOfItsOwnAndTheJarToRun() throws Exception {
        String curl = bannerCurlLine();
        String token = curl.replaceFirst(".*Authorization: Bearer ([^']+)'.*", "$1");

        List<String> lines = Files.readAllLines(serviceLog);
        int heading = lines.indexOf(lines.stream().filter(line -> line.startsWith("Token of demo-user ("))
                .findFirst().orElseThrow());
        assertThat(lines.get(heading + 1)).as("the line under the heading, to paste as TOKEN=").isEqualTo(token);
        assertThat(Files.readString(serviceLog)).as("the jar this process runs, never a placeholder")
                .containsPattern("java -jar \\S+\\.jar demo-token <any user id>").doesNotContain("<the jar>");
    }

    @Test
    void theAdminPasswordIsInItsFileAndNeverInTheLog() throws Exception {
        bannerCurlLine();
        String password = adminLogin().getProperty("password");

        assertThat(password).hasSizeGreaterThanOrEqualTo(20);
        assertThat(Files.getPosixFilePermissions(adminLoginFile())).containsExactlyInAnyOrder(OWNER_READ, OWNER_WRITE);
        assertThat(Files.readString(serviceLog)).contains(adminLoginFile().toString()).doesNotContain(password);
    }

    @Test
    void theBannerNamesTheConsoleItsAdminLoginFileAndTheSandbox() throws Exception {
        bannerCurlLine();
        String base = "http://127.0.0.1:" + RestAssured.port;

        assertThat(Files.readString(serviceLog))
                .contains("Console   " + base + "/console (user " + adminLogin().getProperty("username")
                        + ", password in " + adminLoginFile() + ")")
                .contains("Payments  the sandbox provider at " + base + "/sandbox/v1");
    }

    @Test
    void byDefaultNobodyElseOnTheNetworkReachesTheService() throws Exception {
        InetAddress networkAddress = NetworkInterface.networkInterfaces()
                .filter(network -> !network.isVirtual())
                .flatMap(NetworkInterface::inetAddresses)
                .filter(address -> address instanceof Inet4Address && !address.isLoopbackAddress())
                .findFirst().orElseThrow(() -> new AssertionError("this machine has no network address to try"));

        try (Socket local = new Socket()) {
            local.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), RestAssured.port), 2000);
        }
        try (Socket fromTheNetwork = new Socket()) {
            assertThatThrownBy(() -> fromTheNetwork.connect(new InetSocketAddress(networkAddress, RestAssured.port), 2000))
                    .as("the service's port on %s", networkAddress).isInstanceOf(ConnectException.class);
        }
    }

    @Test
    void theGeneratedAdminLoginSignsIntoTheConsoleAsAnAdmin() throws Exception {
        Properties login = adminLogin();

        Response signIn = given().redirects().follow(false)
                .formParam("j_username", login.getProperty("username"))
                .formParam("j_password", login.getProperty("password"))
                .post("/j_security_check");

        assertThat(signIn.statusCode()).isEqualTo(302);
        assertThat(signIn.header("Location")).endsWith("/console");
        assertThat(signIn.cookie("onceguard-console")).isNotBlank();
        assertThat(given().cookies(signIn.cookies()).get("/console/login").body().asString())
                .contains("admin (admin)");
        assertThat(given().auth().preemptive().basic(login.getProperty("username"), login.getProperty("password"))
                .get("/console/login").body().asString())
                .contains("admin (admin)");
    }

    @Test
    void aWrongConsolePasswordIsRefused() throws Exception {
        String username = adminLogin().getProperty("username");
        // the generated password with one character more, and the test profile's admin password, which must not
        // exist here
        for (String wrong : List.of(adminLogin().getProperty("password") + "x", "admin-password")) {
            Response signIn = given().redirects().follow(false)
                    .formParam("j_username", username)
                    .formParam("j_password", wrong)
                    .post("/j_security_check");

            assertThat(signIn.statusCode()).as(wrong).isEqualTo(302);
            assertThat(signIn.header("Location")).endsWith("/console/login?error=true");
            assertThat(signIn.cookie("onceguard-console")).isNull();
            assertThat(given().redirects().follow(false).auth().preemptive().basic(username, wrong)
                    .get("/console").statusCode()).isEqualTo(401);
        }
    }

    @Test
    void anUnauthenticatedVisitToTheConsoleIsSentToTheLoginPage() {
        Response visit = given().redirects().follow(false).get("/console");

        assertThat(visit.statusCode()).isEqualTo(302);
        assertThat(visit.header("Location")).endsWith("/console/login");
    }

    @Test
    void theSandboxIsOnAndTakesAPaymentWithTheSuccessToken() {
        String bearer = "Bearer " + DemoAccess.in(dataFolder).userToken(DemoAccess.USER);
        String orderId = given().header("Authorization", bearer).contentType("application/json")
                .header("Idempotency-Key", "sandbox-order")
                .body("{\"items\":[{\"productId\":\"p-184\",\"quantity\":1}],\"currency\":\"RUB\"}")
                .post("/api/orders")
                .then().statusCode(201).extract().path("orderId");

        given().header("Authorization", bearer).contentType("application/json")
                .header("Idempotency-Key", "sandbox-payment")
                .body("{\"paymentMethodToken\":\"tok_success\"}")
                .post("/api/orders/" + orderId + "/payments")
                .then().statusCode(201).body("status", equalTo("SUCCEEDED"));

        given().header("Authorization", bearer).get("/api/orders/" + orderId)
                .then().statusCode(200).body("status", equalTo("PAID"))
                .body("payments.status", contains("SUCCEEDED"));
        paidOrders.relayUntilIdle();
        given().header("Authorization", bearer).get("/api/orders/" + orderId)
                .then().statusCode(200).body("status", equalTo("FULFILLED"));
        given().queryParam("orderId", orderId).get("/sandbox/v1/payments")
                .then().statusCode(200).body("data", hasSize(1)).body("data[0].status", equalTo("SUCCEEDED"));
    }

    private Path adminLoginFile() {
        return dataFolder.resolve("console-admin.properties");
    }

    private Properties adminLogin() throws IOException {
        Properties login = new Properties();
        try (var reader = Files.newBufferedReader(adminLoginFile())) {
            login.load(reader);
        }
        return login;
    }

    // The banner is printed once the HTTP server listens, asynchronously, so it may trail the test's start.
    private String bannerCurlLine() {
        return await().pollInSameThread().alias("a curl line in " + serviceLog).atMost(Duration.ofSeconds(10))
                .until(() -> {
                    Matcher curl = CURL_LINE.matcher(Files.exists(serviceLog) ? Files.readString(serviceLog) : "");
                    return curl.find() ? curl.group() : null;
                }, Objects::nonNull);
    }

    private static String runInShell(String command) throws Exception {
        Process process = new ProcessBuilder("sh", "-c", command + " --silent --show-error").start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        String errors = new String(process.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor()).as("curl failed: %s", errors).isZero();
        return output;
    }

    private static String body(String response) {
        return response.substring(response.indexOf("\r\n\r\n") + 4);
    }
}
