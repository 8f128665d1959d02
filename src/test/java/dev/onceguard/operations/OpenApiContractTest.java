package dev.onceguard.operations;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.onceguard.TestTokens;
import io.restassured.response.Response;
import io.restassured.specification.RequestSpecification;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.ws.rs.HttpMethod;
import jakarta.ws.rs.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static io.restassured.RestAssured.given;
import static io.restassured.RestAssured.when;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * /q/openapi describes every /api and /webhooks operation (Idempotency-Key, every error code, examples) and nothing
 * else, in a shape a client generator takes: a server, security on every operation, Redocly's lint without errors.
 */
@QuarkusTest
class OpenApiContractTest {

    private static final Set<String> SERVER_ERRORS = Set.of("INTERNAL_ERROR", "SERVICE_UNAVAILABLE", "SHUTTING_DOWN");
    private static final Set<String> AUTHENTICATED_READ = union(SERVER_ERRORS, Set.of("UNAUTHORIZED", "NOT_ACCEPTABLE",
            "VALIDATION_FAILED"));
    private static final Set<String> IDEMPOTENT_WRITE = union(AUTHENTICATED_READ, Set.of("MALFORMED_JSON",
            "VALIDATION_FAILED", "IDEMPOTENCY_KEY_MISSING", "IDEMPOTENCY_KEY_INVALID", "IDEMPOTENCY_KEY_REUSED",
            "OPERATION_IN_PROGRESS", "PAYLOAD_TOO_LARGE", "UNSUPPORTED_MEDIA_TYPE"));

    /** The error codes each operation can answer, as the contract and the code say. */
    private static final Map<String, Set<String>> ERROR_CODES = Map.of(
            "GET /api/products", AUTHENTICATED_READ,
            "POST /api/orders", union(IDEMPOTENT_WRITE, Set.of("OUT_OF_STOCK", "QUANTITY_LIMIT_EXCEEDED")),
            "GET /api/orders", AUTHENTICATED_READ,
            "GET /api/orders/{orderId}", union(AUTHENTICATED_READ, Set.of("ORDER_NOT_FOUND", "NOT_FOUND")),
            "POST /api/orders/{orderId}/payments", union(IDEMPOTENT_WRITE, Set.of("ORDER_NOT_FOUND", "NOT_FOUND",
                    "ORDER_ALREADY_PAID", "ORDER_NOT_PAYABLE", "PAYMENT_ATTEMPT_UNRESOLVED",
                    "PROVIDER_UNAVAILABLE")),
            "GET /api/payments/{paymentId}", union(AUTHENTICATED_READ, Set.of("PAYMENT_NOT_FOUND", "NOT_FOUND")),
            "POST /api/payments/{paymentId}/refunds", union(IDEMPOTENT_WRITE, Set.of("FORBIDDEN", "PAYMENT_NOT_FOUND",
                    "NOT_FOUND",
                    "REFUND_EXCEEDS_PAYMENT", "PAYMENT_NOT_REFUNDABLE")),
            "POST /api/orders/{orderId}/cancellation", union(IDEMPOTENT_WRITE, Set.of("ORDER_NOT_FOUND", "NOT_FOUND",
                    "ORDER_NOT_CANCELABLE", "PAYMENT_ATTEMPT_UNRESOLVED")),
            "POST /webhooks/{provider}", union(SERVER_ERRORS, Set.of("PROVIDER_NOT_FOUND", "WEBHOOK_SIGNATURE_INVALID",
                    "WEBHOOK_EVENT_INVALID", "WEBHOOK_PROCESSING_FAILED", "PAYLOAD_TOO_LARGE", "MALFORMED_JSON",
                    "NOT_FOUND", "NOT_ACCEPTABLE",
                    "VALIDATION_FAILED", "UNSUPPORTED_MEDIA_TYPE", "WEBHOOK_SOURCE_NOT_ALLOWED", "WEBHOOK_READ_BACK_FAILED")));

    private static final ExternalTool NPX = new ExternalTool("npx", "install Node.js and npm (apt-get install -y npm)");
    private static final Pattern REF = Pattern.compile("\"\\$ref\":\"#/components/([a-zA-Z]+)/([^\"]+)\"");

    private JsonNode openapi;

    // Fetched per test: RestAssured points at the test application only while a test method runs.
    @BeforeEach
    void fetch() throws Exception {
        openapi = new ObjectMapper().readTree(when().get("/q/openapi?format=json").then().statusCode(200)
                .extract().asString());
    }

    @Test
    void everyApiAndWebhookOperationOfTheCodeIsDescribedByTheContractOnly() throws IOException, ClassNotFoundException {
        List<String> served = new ArrayList<>();
        for (Class<?> resource : resourcesUnder("/api", "/webhooks")) {
            for (Method method : resource.getDeclaredMethods()) {
                for (Annotation annotation : method.getAnnotations()) {
                    HttpMethod verb = annotation.annotationType().getAnnotation(HttpMethod.class);
                    if (verb != null) {
                        served.add(verb.value() + " " + path(resource, method));
                    }
                }
            }
        }

        assertThat(served).containsExactlyInAnyOrderElementsOf(ERROR_CODES.keySet());
        for (String operation : served) {
            assertThat(operation(operation).isObject()).as(operation).isTrue();
            assertThat(texts(operation(operation).path("tags"))).as(operation + ": written, not scanned")
                    .isSubsetOf("Catalog", "Orders", "Payments", "Refunds", "Webhooks");
        }
    }

    @Test
    void onlyTheApiAndTheWebhooksAreDescribedWithNoComponentTheyDoNotUse() {
        List<String> paths = new ArrayList<>();
        openapi.path("paths").fieldNames().forEachRemaining(paths::add);
        Set<String> components = new TreeSet<>();
        openapi.path("components").fields().forEachRemaining(kind -> {
            if (!kind.getKey().equals("securitySchemes")) {
                kind.getValue().fieldNames().forEachRemaining(name -> components.add(kind.getKey() + "/" + name));
            }
        });

        assertThat(paths).isNotEmpty().allMatch(path -> path.startsWith("/api/") || path.startsWith("/webhooks/"));
        assertThat(reachableFromThePaths()).as("components reachable from the paths").isEqualTo(components);
        assertThat(openapi.path("servers").size()).isPositive();
        // mp.openapi.servers; a relative "/" would make a generated client call http://localhost
        assertThat(openapi.at("/servers/0/url").asText()).isEqualTo("http://localhost:8080");
        assertThat(openapi.at("/info/version").asText()).isNotBlank();
    }

    @Test
    void theApiTakesABearerTokenAndTheWebhooksTheirSignaturesOnly() {
        openapi.path("paths").fields().forEachRemaining(path -> path.getValue().fields().forEachRemaining(operation -> {
            String name = operation.getKey().toUpperCase(Locale.ROOT) + " " + path.getKey();
            JsonNode security = operation.getValue().path("security");
            assertThat(security.isArray()).as(name + " declares its security").isTrue();
            if (path.getKey().startsWith("/api/")) {
                assertThat(security).as(name).hasSize(1);
                assertThat(security.get(0).has("bearer")).as(name).isTrue();
            } else {
                assertThat(security).as(name + ": no bearer token, a signature").isEmpty();
            }
        }));
    }

    @Test
    void everySecuritySchemeOfTheServedDocumentIsOneAnOperationUses() {
        Set<String> used = new TreeSet<>();
        openapi.path("paths").forEach(path -> path.forEach(operation -> operation.path("security")
                .forEach(requirement -> requirement.fieldNames().forEachRemaining(used::add))));
        Set<String> declared = new TreeSet<>();
        openapi.at("/components/securitySchemes").fieldNames().forEachRemaining(declared::add);

        // a scheme no operation names makes client generators emit authentication code for nothing
        assertThat(declared).isEqualTo(used).containsExactly("bearer");
    }

    @Test
    void redoclyLintsTheServedDocumentWithoutErrors() throws IOException {
        java.nio.file.Path served = java.nio.file.Path.of("target", "openapi", "served.json");
        Files.createDirectories(served.getParent());
        Files.writeString(served, openapi.toPrettyString());
        NPX.assumeInstalled("Redocly lint of /q/openapi");

        ExternalTool.Result lint = NPX.run(java.nio.file.Path.of("."), 600, "--yes", "@redocly/cli@2", "lint",
                "--format=stylish", served.toString());

        assertThat(lint.exitCode()).as(lint.output()).isZero();
        assertThat(lint.output()).doesNotContainPattern("\\berror\\b");
    }

    @Test
    void everyStateChangingCallRequiresTheIdempotencyKeyHeader() {
        for (String operation : List.of("POST /api/orders", "POST /api/orders/{orderId}/payments",
                "POST /api/payments/{paymentId}/refunds", "POST /api/orders/{orderId}/cancellation")) {
            JsonNode key = null;
            for (JsonNode parameter : operation(operation).path("parameters")) {
                JsonNode resolved = resolve(parameter);
                if (resolved.path("name").asText().equals("Idempotency-Key")) {
                    key = resolved;
                }
            }
            assertThat(key).as(operation).isNotNull();
            assertThat(key.path("in").asText()).isEqualTo("header");
            assertThat(key.path("required").asBoolean()).isTrue();
            assertThat(key.at("/schema/maxLength").asInt()).isEqualTo(255);
            assertThat(key.path("example").asText()).isNotBlank();
        }
    }

    @Test
    void everyOperationListsItsErrorCodesEachWithAnExampleOfItsStatus() {
        ERROR_CODES.forEach((operation, expected) -> {
            Set<String> documented = new TreeSet<>();
            operation(operation).path("responses").fields().forEachRemaining(entry -> {
                JsonNode response = resolve(entry.getValue());
                if (entry.getKey().startsWith("2")) {
                    assertThat(response.at("/content/application~1json/examples").size())
                            .as(operation + " " + entry.getKey() + " example").isPositive();
                    return;
                }
                JsonNode examples = response.at("/content/application~1problem+json/examples");
                assertThat(examples.size()).as(operation + " " + entry.getKey() + " examples").isPositive();
                examples.forEach(example -> {
                    JsonNode problem = resolve(example).path("value");
                    assertThat(problem.path("status").asText()).as(operation + " " + problem.path("code"))
                            .isEqualTo(entry.getKey());
                    documented.add(problem.path("code").asText());
                });
            });
            assertThat(documented).as(operation).isEqualTo(new TreeSet<>(expected));
        });
    }

    /**
     * Sends each operation the requests the service refuses before or around its own logic (no token, a query value
     * or path id the database cannot store, an Accept it does not serve, a body of another type, truncated JSON) and
     * checks the document declares, for that operation, the status and code each refusal answered with. SHUTTING_DOWN
     * is declared through ERROR_CODES only: draining the shared test application would refuse every later test.
     */
    @Test
    void everyRefusalAnOperationAnswersIsDeclaredForThatOperation() {
        String token = TestTokens.refunds(TestTokens.newUser());
        Set<String> undeclared = new TreeSet<>();
        for (String operation : ERROR_CODES.keySet()) {
            String verb = operation.split(" ", 2)[0];
            String template = operation.split(" ", 2)[1];
            String path = template.replaceAll("\\{[^}]+}", "ord_missing");
            Map<String, Supplier<String>> refusals = new LinkedHashMap<>();
            if (template.startsWith("/api/")) {
                refusals.put("no token", () -> answer(given(), verb, path));
            }
            refusals.put("a NUL in a query value", () -> answer(withJsonBody(asCaller(token)), verb,
                    path + "?filter=%00"));
            refusals.put("Accept: text/plain", () -> answer(asCaller(token).accept("text/plain"), verb, path));
            if (!path.equals(template)) {
                refusals.put("a NUL in the path", () -> answer(withJsonBody(asCaller(token)), verb,
                        template.replaceAll("\\{[^}]+}", "%00")));
                refusals.put("a path id over 255 characters", () -> answer(withJsonBody(asCaller(token)), verb,
                        template.replaceAll("\\{[^}]+}", "o".repeat(256))));
            }
            if (verb.equals("POST")) {
                refusals.put("a text/plain body", () -> answer(asCaller(token).contentType("text/plain").body("{}"),
                        verb, path));
                refusals.put("a truncated JSON body", () -> answer(asCaller(token).contentType("application/json")
                        .body("{"), verb, path));
            }
            Set<String> declared = declaredAnswers(operation);
            refusals.forEach((refusal, send) -> {
                String answer = send.get();
                if (!declared.contains(answer)) {
                    undeclared.add(operation + " answers " + answer + " to " + refusal);
                }
            });
        }

        assertThat(undeclared).as("answered but not declared").isEmpty();
    }

    private static RequestSpecification withJsonBody(
            RequestSpecification request) {
        return request.contentType("application/json").body("{}");
    }

    private static RequestSpecification asCaller(String token) {
        return given().header("Authorization", token).header("Idempotency-Key", UUID.randomUUID().toString());
    }

    /** "status code" of the answer; urls are sent as written, so an escaped NUL reaches the service. */
    private static String answer(RequestSpecification request, String verb, String url) {
        Response response = request.urlEncodingEnabled(false).request(verb, url);
        return response.contentType().startsWith("application/problem+json")
                ? response.statusCode() + " " + response.jsonPath().getString("code")
                : response.statusCode() + " without a problem body (" + response.contentType() + ")";
    }

    /** "status code" of every problem example the document gives {@code operation}. */
    private Set<String> declaredAnswers(String operation) {
        Set<String> declared = new TreeSet<>();
        operation(operation).path("responses").fields().forEachRemaining(entry -> resolve(entry.getValue())
                .at("/content/application~1problem+json/examples").forEach(example ->
                        declared.add(entry.getKey() + " " + resolve(example).at("/value/code").asText())));
        return declared;
    }

    @Test
    void aProblemsCodeIsAnEnumOfExactlyTheCodesTheOperationsAnswer() {
        Set<String> enumerated = new TreeSet<>(texts(openapi.at("/components/schemas/ProblemCode/enum")));

        assertThat(openapi.at("/components/schemas/Problem/properties/code/$ref").asText())
                .isEqualTo("#/components/schemas/ProblemCode");
        assertThat(enumerated).isEqualTo(ERROR_CODES.values().stream().flatMap(Set::stream)
                .collect(Collectors.toCollection(TreeSet::new)));
    }

    @Test
    void everyAnswerAnIdempotentWriteCanReplayDeclaresIdempotentReplayed() {
        for (String operation : List.of("POST /api/orders", "POST /api/orders/{orderId}/payments",
                "POST /api/payments/{paymentId}/refunds", "POST /api/orders/{orderId}/cancellation")) {
            operation(operation).path("responses").fields().forEachRemaining(entry -> {
                // 202 (the outcome is still open) and the refusals that store nothing are never replayed
                String status = entry.getKey();
                boolean stored = status.equals("409") || status.startsWith("2") && !status.equals("202");
                JsonNode header = resolve(entry.getValue()).at("/headers/Idempotent-Replayed");
                assertThat(header.isMissingNode()).as(operation + " " + entry.getKey()).isEqualTo(!stored);
            });
        }
    }

    @Test
    void requestBodiesOfTheWritesHaveASchemaAndAnExample() {
        for (String operation : List.of("POST /api/orders", "POST /api/orders/{orderId}/payments",
                "POST /api/payments/{paymentId}/refunds")) {
            JsonNode body = operation(operation).at("/requestBody/content/application~1json");
            assertThat(resolve(body.path("schema")).path("required").size()).as(operation).isPositive();
            assertThat(body.path("examples").size()).as(operation).isPositive();
        }
    }

    private JsonNode operation(String operation) {
        String[] verbAndPath = operation.split(" ", 2);
        return openapi.path("paths").path(verbAndPath[1]).path(verbAndPath[0].toLowerCase(Locale.ROOT));
    }

    /** Every component a path refers to, directly or through other components, as "kind/name". */
    private Set<String> reachableFromThePaths() {
        Set<String> reached = new TreeSet<>();
        List<JsonNode> pending = new ArrayList<>(List.of(openapi.path("paths")));
        while (!pending.isEmpty()) {
            Matcher ref = REF.matcher(pending.remove(pending.size() - 1).toString());
            while (ref.find()) {
                String component = ref.group(1) + "/" + ref.group(2);
                if (reached.add(component)) {
                    pending.add(openapi.path("components").path(ref.group(1)).path(ref.group(2)));
                }
            }
        }
        return reached;
    }

    private JsonNode resolve(JsonNode node) {
        JsonNode current = node;
        while (current.has("$ref")) {
            current = openapi.at(current.path("$ref").asText().substring(1));
        }
        return current;
    }

    /** The JAX-RS resource classes of the application whose path starts with one of {@code prefixes}. */
    private static List<Class<?>> resourcesUnder(String... prefixes) throws IOException, ClassNotFoundException {
        java.nio.file.Path classes = java.nio.file.Path.of("target", "classes");
        List<Class<?>> resources = new ArrayList<>();
        try (Stream<java.nio.file.Path> files = Files.walk(classes)) {
            for (java.nio.file.Path file : files.filter(f -> f.toString().endsWith(".class")).toList()) {
                String name = classes.relativize(file).toString().replace(".class", "").replace('/', '.');
                Class<?> type = Class.forName(name, false, OpenApiContractTest.class.getClassLoader());
                Path path = type.getAnnotation(Path.class);
                if (!type.isInterface() && path != null
                        && Stream.of(prefixes).anyMatch(prefix -> path.value().startsWith(prefix))) {
                    resources.add(type);
                }
            }
        }
        return resources;
    }

    private static List<String> texts(JsonNode array) {
        List<String> texts = new ArrayList<>();
        array.forEach(node -> texts.add(node.asText()));
        return texts;
    }

    private static String path(Class<?> resource, Method method) {
        String path = resource.getAnnotation(Path.class).value();
        if (method.isAnnotationPresent(Path.class)) {
            path = path.replaceAll("/$", "") + "/" + method.getAnnotation(Path.class).value().replaceAll("^/", "");
        }
        return path;
    }

    @SafeVarargs
    private static Set<String> union(Set<String>... sets) {
        Set<String> all = new TreeSet<>();
        for (Set<String> set : sets) {
            all.addAll(set);
        }
        return all;
    }
}
