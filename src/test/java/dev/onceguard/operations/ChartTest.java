package dev.onceguard.operations;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import com.marcnuri.helm.LintResult;
import dev.onceguard.operations.HelmChart.Rendered;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.StreamSupport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** helm lint and helm template of helm/onceguard, with the default values and with every switch. */
class ChartTest {

    private static final Map<String, Object> EVERY_SECRET_REFERENCE = Map.of(
            "jwt.existingSecret", "onceguard-jwt",
            "jwt.key", "jwks.json",
            "jwt.audiences", "https://shop.example.com/api",
            "stripe.existingSecret", "onceguard-stripe",
            "sandbox.enabled", true,
            "sandbox.webhookSecret.existingSecret", "onceguard-sandbox",
            "console.users.existingSecret", "onceguard-console",
            "console.sessionKey.existingSecret", "onceguard-console-session");

    /** The values a NetworkPolicy needs: where PostgreSQL and the payment provider are. */
    private static final Map<String, Object> NETWORK_POLICY = Map.of("networkPolicy.enabled", true,
            "networkPolicy.database.to[0].ipBlock.cidr", "10.10.0.5/32",
            "networkPolicy.provider.cidrs[0]", "3.18.12.63/32",
            "networkPolicy.provider.cidrs[1]", "3.130.192.231/32");

    private static final Set<String> ALERTS = Set.of("OnceguardOperationsStuck", "OnceguardJobNotSucceeding",
            "OnceguardOutboxLagging", "OnceguardConflictSpike", "OnceguardDuplicateWebhookSpike",
            "OnceguardUnknownPayments", "OnceguardServerErrors", "OnceguardSlowRequests", "OnceguardDatabasePoolExhausted",
            "OnceguardProviderErrors", "OnceguardUnknownRefunds", "OnceguardConsolePasswordGuessing");

    @Test
    void lintsCleanInStrictMode() {
        LintResult lint = HelmChart.lint();

        assertThat(lint.isFailed()).as(String.join("\n", lint.getMessages())).isFalse();
        assertThat(lint.getMessages()).noneMatch(m -> m.startsWith("[ERROR]") || m.startsWith("[WARNING]"));
    }

    @Test
    void defaultValuesRenderTheServiceWithItsDisruptionBudgetAndNothingOptional() {
        assertThat(HelmChart.render(Map.of()).kinds())
                .containsExactly("ConfigMap", "Deployment", "PodDisruptionBudget", "Service", "ServiceAccount");
    }

    @Test
    void theChartHasAnIconAndAValuesSchemaThatKnowsEveryValue() throws IOException {
        JsonNode chart = new YAMLMapper().readTree(HelmChart.CHART.resolve("Chart.yaml").toFile());
        JsonNode values = new YAMLMapper().readTree(HelmChart.CHART.resolve("values.yaml").toFile());
        JsonNode schema = new ObjectMapper().readTree(HelmChart.CHART.resolve("values.schema.json").toFile());
        List<String> undeclared = new ArrayList<>();
        undeclared("", values, schema, undeclared);

        assertThat(chart.path("icon").asText()).startsWith("https://").endsWith("/helm/onceguard/icon.svg");
        assertThat(HelmChart.CHART.resolve("icon.svg")).exists();
        assertThat(undeclared).as("values missing from values.schema.json").isEmpty();
    }

    @Test
    void probesPointAtTheQuarkusHealthEndpointsOnTheHttpPort() {
        JsonNode container = HelmChart.render(Map.of()).container();

        assertThat(container.at("/ports/0/name").asText()).isEqualTo("http");
        assertThat(container.at("/ports/0/containerPort").asInt()).isEqualTo(8080);
        assertThat(container.at("/startupProbe/httpGet/path").asText()).isEqualTo("/q/health/started");
        assertThat(container.at("/livenessProbe/httpGet/path").asText()).isEqualTo("/q/health/live");
        assertThat(container.at("/readinessProbe/httpGet/path").asText()).isEqualTo("/q/health/ready");
        for (String probe : List.of("startupProbe", "livenessProbe", "readinessProbe")) {
            assertThat(container.path(probe).at("/httpGet/port").asText()).as(probe).isEqualTo("http");
        }
    }

    @ParameterizedTest
    @CsvSource({"podSecurityContext.runAsUser,1001", "sandbox.enabled,true", "autoscaling.enabled,true"})
    void theContainerIsLockedDownWhateverTheValues(String key, String value) {
        Rendered rendered = HelmChart.render(Map.of(key, value));
        JsonNode pod = rendered.only("Deployment").at("/spec/template/spec");
        JsonNode container = rendered.container();

        assertThat(pod.at("/securityContext/runAsNonRoot").asBoolean()).isTrue();
        assertThat(pod.at("/securityContext/runAsUser").asInt()).isPositive();
        assertThat(pod.at("/securityContext/seccompProfile/type").asText()).isEqualTo("RuntimeDefault");
        assertThat(pod.path("automountServiceAccountToken").asBoolean(true)).isFalse();
        JsonNode security = container.path("securityContext");
        assertThat(security.path("runAsNonRoot").asBoolean()).isTrue();
        assertThat(security.path("readOnlyRootFilesystem").asBoolean()).isTrue();
        assertThat(security.path("allowPrivilegeEscalation").asBoolean(true)).isFalse();
        assertThat(security.path("privileged").asBoolean(true)).isFalse();
        assertThat(texts(security.at("/capabilities/drop"))).containsExactly("ALL");
        assertThat(security.at("/capabilities/add").isMissingNode()).isTrue();
        JsonNode tmp = find(container.path("volumeMounts"), "mountPath", "/tmp");
        assertThat(find(pod.path("volumes"), "name", tmp.path("name").asText()).has("emptyDir")).isTrue();
        assertThat(container.at("/resources/requests/cpu").isMissingNode()).isFalse();
        assertThat(container.at("/resources/requests/memory").isMissingNode()).isFalse();
        assertThat(container.at("/resources/limits/memory").isMissingNode()).isFalse();
    }

    @Test
    void updatesRollWithoutTakingAPodAwayFirst() {
        JsonNode deployment = HelmChart.render(Map.of()).only("Deployment");

        assertThat(deployment.at("/spec/strategy/type").asText()).isEqualTo("RollingUpdate");
        assertThat(deployment.at("/spec/strategy/rollingUpdate/maxUnavailable").asInt()).isZero();
        assertThat(deployment.at("/spec/strategy/rollingUpdate/maxSurge").asInt()).isPositive();
        assertThat(deployment.at("/spec/replicas").asInt()).isEqualTo(2);
    }

    @Test
    void runsTheProdProfileAgainstTheConfiguredDatabaseWithTheSandboxOff() {
        Rendered rendered = HelmChart.render(Map.of("database.url", "jdbc:postgresql://pg.db.svc:5432/shop"));
        Map<String, JsonNode> env = rendered.env();

        assertThat(env.get("QUARKUS_PROFILE").path("value").asText()).isEqualTo("prod");
        assertThat(env.get("QUARKUS_DATASOURCE_JDBC_URL").path("value").asText())
                .isEqualTo("jdbc:postgresql://pg.db.svc:5432/shop");
        assertThat(rendered.only("ConfigMap").at("/data/ONCEGUARD_SANDBOX_ENABLED").asText()).isEqualTo("false");
    }

    @Test
    void theOpenApiDocumentNamesTheIngressHostAsItsServer() {
        Map<String, JsonNode> plain = HelmChart.render(Map.of("ingress.enabled", "true",
                "ingress.host", "shop.example.org")).env();
        Map<String, JsonNode> tls = HelmChart.render(Map.of("ingress.enabled", "true", "ingress.host", "shop.example.org",
                "ingress.tls[0].hosts[0]", "shop.example.org", "ingress.tls[0].secretName", "shop-tls")).env();

        assertThat(HelmChart.render(Map.of()).env()).doesNotContainKey("MP_OPENAPI_SERVERS");
        assertThat(plain.get("MP_OPENAPI_SERVERS").path("value").asText()).isEqualTo("http://shop.example.org");
        assertThat(tls.get("MP_OPENAPI_SERVERS").path("value").asText()).isEqualTo("https://shop.example.org");
    }

    @Test
    void tracingIsOffUnlessItsValuesNameACollector() {
        Map<String, JsonNode> off = HelmChart.render(Map.of()).env();
        Map<String, JsonNode> on = HelmChart.render(Map.of("tracing.enabled", "true",
                "tracing.endpoint", "http://otel-collector.monitoring:4317", "tracing.samplerRatio", "0.25")).env();

        assertThat(off).doesNotContainKeys("QUARKUS_OTEL_TRACES_SAMPLER", "QUARKUS_OTEL_EXPORTER_OTLP_TRACES_ENDPOINT");
        assertThat(on.get("QUARKUS_OTEL_TRACES_SAMPLER").path("value").asText()).isEqualTo("parentbased_traceidratio");
        assertThat(on.get("QUARKUS_OTEL_TRACES_SAMPLER_ARG").path("value").asText()).isEqualTo("0.25");
        assertThat(on.get("QUARKUS_OTEL_EXPORTER_OTLP_TRACES_ENDPOINT").path("value").asText())
                .isEqualTo("http://otel-collector.monitoring:4317");
        assertThatThrownBy(() -> HelmChart.render(Map.of("tracing.enabled", "true")))
                .hasMessageContaining("tracing.endpoint is required");
    }

    @Test
    void aDatabaseUrlIsRequiredAndCarriesNoCredentials() {
        assertThatThrownBy(() -> HelmChart.render(Map.of("database.url", "")))
                .hasMessageContaining("database");
        assertThatThrownBy(() -> HelmChart.render(Map.of("database.url", "jdbc:postgresql://pg/shop?password=hunter2")))
                .hasMessageContaining("database");
    }

    @Test
    void onceguardSettingsReachThePodAsEnvironmentFromTheConfigMap() {
        Rendered rendered = HelmChart.render(Map.of(
                "config.onceguard\\.idempotency\\.operations\\.create-order\\.retention", "48h"));
        JsonNode configMap = rendered.only("ConfigMap");

        assertThat(fieldNames(configMap.path("data"))).allMatch(name -> name.matches("ONCEGUARD_[A-Z0-9_]+"));
        assertThat(configMap.at("/data/ONCEGUARD_IDEMPOTENCY_OPERATIONS_CREATE_ORDER_RETENTION").asText()).isEqualTo("48h");
        assertThat(configMap.at("/data/ONCEGUARD_JOBS_OUTBOX_RELAY_EVERY").asText()).isEqualTo("1s");
        assertThat(rendered.container().at("/envFrom/0/configMapRef/name").asText())
                .isEqualTo(configMap.at("/metadata/name").asText());
        assertThat(rendered.only("Deployment").at("/spec/template/metadata/annotations/checksum~1config").asText())
                .hasSize(64);
    }

    @Test
    void secretsAreReferencedByNameAndNeverRendered() {
        Rendered rendered = HelmChart.render(EVERY_SECRET_REFERENCE);
        Map<String, JsonNode> env = rendered.env();

        assertThat(rendered.kinds()).doesNotContain("Secret");
        for (String name : List.of("QUARKUS_DATASOURCE_USERNAME", "QUARKUS_DATASOURCE_PASSWORD",
                "ONCEGUARD_STRIPE_API_KEY", "ONCEGUARD_WEBHOOKS_STRIPE_SECRET", "ONCEGUARD_WEBHOOKS_SANDBOX_SECRET",
                "QUARKUS_HTTP_AUTH_SESSION_ENCRYPTION_KEY")) {
            assertThat(env).containsKey(name);
            assertThat(env.get(name).has("value")).as(name).isFalse();
            assertThat(env.get(name).at("/valueFrom/secretKeyRef/name").asText()).as(name).isNotBlank();
        }
        assertThat(env.keySet().stream().filter(n -> n.matches(".*(PASSWORD|SECRET|API_KEY|TOKEN).*")))
                .allMatch(n -> env.get(n).has("valueFrom"));
        JsonNode configMap = rendered.only("ConfigMap").path("data");
        assertThat(fieldNames(configMap)).noneMatch(n -> n.matches(".*(PASSWORD|SECRET|API_KEY|TOKEN|PRIVATE).*"));
        JsonNode pod = rendered.only("Deployment").at("/spec/template/spec");
        assertThat(find(pod.path("volumes"), "name", "jwt").at("/secret/secretName").asText()).isEqualTo("onceguard-jwt");
        assertThat(env.get("SMALLRYE_JWT_VERIFY_KEY_LOCATION").path("value").asText())
                .isEqualTo("/etc/onceguard/jwt/jwks.json");
        assertThat(find(pod.path("volumes"), "name", "console-users").at("/secret/secretName").asText())
                .isEqualTo("onceguard-console");
        assertThat(env.get("QUARKUS_CONFIG_LOCATIONS").path("value").asText())
                .isEqualTo("/etc/onceguard/console/users.properties");
        for (JsonNode mount : rendered.container().path("volumeMounts")) {
            if (!mount.path("mountPath").asText().equals("/tmp")) {
                assertThat(mount.path("readOnly").asBoolean()).as(mount.toString()).isTrue();
            }
        }
    }

    @Test
    void aCatalogFromAConfigMapIsMountedReadOnlyAndNamedOnlyWhenGiven() {
        Rendered bare = HelmChart.render(Map.of());
        Rendered withCatalog = HelmChart.render(Map.of("catalog.existingConfigMap", "onceguard-catalog",
                "catalog.key", "products.json"));
        JsonNode pod = withCatalog.only("Deployment").at("/spec/template/spec");

        assertThat(bare.env()).doesNotContainKey("ONCEGUARD_CATALOG_FILE");
        assertThat(bare.only("Deployment").at("/spec/template/spec/volumes").findValuesAsText("name"))
                .doesNotContain("catalog");
        assertThat(withCatalog.env().get("ONCEGUARD_CATALOG_FILE").path("value").asText())
                .isEqualTo("/etc/onceguard/catalog/products.json");
        JsonNode volume = find(pod.path("volumes"), "name", "catalog");
        assertThat(volume.at("/configMap/name").asText()).isEqualTo("onceguard-catalog");
        assertThat(volume.at("/configMap/items/0/key").asText()).isEqualTo("products.json");
        assertThat(volume.at("/configMap/items/0/path").asText()).isEqualTo("products.json");
        JsonNode mount = find(withCatalog.container().path("volumeMounts"), "name", "catalog");
        assertThat(mount.path("mountPath").asText()).isEqualTo("/etc/onceguard/catalog");
        assertThat(mount.path("readOnly").asBoolean()).isTrue();
    }

    @Test
    void jvmOptionsKeepTheImagesOwnAndAddTheChartsChoice() {
        String byDefault = HelmChart.render(Map.of()).env().get("JAVA_OPTS_APPEND").path("value").asText();
        String custom = HelmChart.render(Map.of("javaOpts", "-XX:+UseParallelGC")).env().get("JAVA_OPTS_APPEND")
                .path("value").asText();
        String none = HelmChart.render(Map.of("javaOpts", "")).env().get("JAVA_OPTS_APPEND").path("value").asText();

        String imageOwn = "-Dquarkus.http.host=0.0.0.0 -Djava.util.logging.manager=org.jboss.logmanager.LogManager";
        assertThat(byDefault).isEqualTo(imageOwn + " -XX:+UseSerialGC -XX:MaxRAMPercentage=25 -XX:InitialRAMPercentage=12.5"
                + " -Dquarkus.http.io-threads=2");
        assertThat(custom).isEqualTo(imageOwn + " -XX:+UseParallelGC");
        assertThat(none).isEqualTo(imageOwn);
    }

    @Test
    void aPinnedStripeApiVersionReachesTheConfigMapOnlyWhenGiven() {
        JsonNode bare = HelmChart.render(Map.of()).only("ConfigMap").path("data");
        JsonNode pinned = HelmChart.render(Map.of("stripe.apiVersion", "2025-03-31.basil")).only("ConfigMap").path("data");

        assertThat(fieldNames(bare)).doesNotContain("ONCEGUARD_STRIPE_API_VERSION");
        assertThat(pinned.path("ONCEGUARD_STRIPE_API_VERSION").asText()).isEqualTo("2025-03-31.basil");
        assertThatThrownBy(() -> HelmChart.render(Map.of("stripe.apiVersion", "latest")))
                .hasMessageContaining("apiVersion");
    }

    @Test
    void yookassaTakesItsSecretKeyFromASecretAndItsPlainSettingsFromTheConfigMap() {
        Rendered bare = HelmChart.render(Map.of());
        Rendered yookassa = HelmChart.render(Map.of("payments.provider", "yookassa", "yookassa.shopId", "506751",
                "yookassa.returnUrl", "https://shop.example/return", "yookassa.existingSecret", "onceguard-yookassa",
                "yookassa.notificationSources[0]", "185.71.76.0/27", "yookassa.notificationSources[1]", "2a02:5180::/32"));
        JsonNode data = yookassa.only("ConfigMap").path("data");

        assertThat(bare.env()).doesNotContainKey("ONCEGUARD_YOOKASSA_SECRET_KEY");
        assertThat(fieldNames(bare.only("ConfigMap").path("data"))).doesNotContain("ONCEGUARD_YOOKASSA_SHOP_ID",
                "ONCEGUARD_YOOKASSA_NOTIFICATION_SOURCES");
        assertThat(yookassa.env().get("ONCEGUARD_YOOKASSA_SECRET_KEY").at("/valueFrom/secretKeyRef/name").asText())
                .isEqualTo("onceguard-yookassa");
        assertThat(yookassa.env().get("ONCEGUARD_YOOKASSA_SECRET_KEY").at("/valueFrom/secretKeyRef/key").asText())
                .isEqualTo("secret-key");
        assertThat(data.path("ONCEGUARD_PAYMENTS_PROVIDER").asText()).isEqualTo("yookassa");
        assertThat(data.path("ONCEGUARD_YOOKASSA_SHOP_ID").asText()).isEqualTo("506751");
        assertThat(data.path("ONCEGUARD_YOOKASSA_RETURN_URL").asText()).isEqualTo("https://shop.example/return");
        assertThat(data.path("ONCEGUARD_YOOKASSA_BASE_URL").asText()).isEqualTo("https://api.yookassa.ru/v3");
        assertThat(data.path("ONCEGUARD_YOOKASSA_NOTIFICATION_SOURCES").asText())
                .isEqualTo("185.71.76.0/27,2a02:5180::/32");
        assertThat(data.toString()).doesNotContain("test_");
    }

    @ParameterizedTest
    @CsvSource({"onceguard.webhooks.stripe.secret,whsec_abc", "onceguard.stripe.api-key,sk_live_abc",
            "onceguard.console.admin-password,hunter2"})
    void aSecretPutIntoTheConfigMapIsRefused(String property, String value) {
        assertThatThrownBy(() -> HelmChart.render(Map.of("config." + property.replace(".", "\\."), value)))
                .hasMessageContaining(property);
    }

    @Test
    void aJwtKeyComesFromOnePlaceOnlyAndNeedsTheAudienceOfTheApisTokens() {
        Rendered byUrl = HelmChart.render(Map.of("jwt.publicKeyLocation", "https://idp.example.com/jwks.json",
                "jwt.issuer", "https://idp.example.com", "jwt.audiences", "https://shop.example.com/api"));
        assertThat(byUrl.env().get("MP_JWT_VERIFY_AUDIENCES").path("value").asText())
                .isEqualTo("https://shop.example.com/api");
        assertThatThrownBy(() -> HelmChart.render(Map.of("jwt.publicKeyLocation", "https://idp.example.com/jwks.json")))
                .hasMessageContaining("jwt.audiences is required");
        assertThatThrownBy(() -> HelmChart.render(Map.of("jwt.existingSecret", "onceguard-jwt")))
                .hasMessageContaining("jwt.audiences is required");

        assertThat(byUrl.env().get("MP_JWT_VERIFY_PUBLICKEY_LOCATION").path("value").asText())
                .isEqualTo("https://idp.example.com/jwks.json");
        assertThat(byUrl.env().get("MP_JWT_VERIFY_ISSUER").path("value").asText()).isEqualTo("https://idp.example.com");
        assertThatThrownBy(() -> HelmChart.render(Map.of("jwt.publicKeyLocation", "https://idp.example.com/jwks.json",
                "jwt.existingSecret", "onceguard-jwt"))).hasMessageContaining("not both");
    }

    @ParameterizedTest
    @CsvSource({"ingress.enabled,Ingress",
            "autoscaling.enabled,HorizontalPodAutoscaler", "serviceMonitor.enabled,ServiceMonitor",
            "networkPolicy.enabled,NetworkPolicy",
            "prometheusRule.enabled,PrometheusRule", "grafanaDashboard.enabled,ConfigMap"})
    void eachSwitchAddsItsObject(String flag, String kind) {
        Rendered off = HelmChart.render(Map.of());
        Rendered on = HelmChart.render(flag.equals("networkPolicy.enabled") ? NETWORK_POLICY : Map.of(flag, true));

        assertThat(on.all(kind)).hasSize(off.all(kind).size() + 1);
        assertThat(on.objects()).hasSize(off.objects().size() + 1);
    }

    @Test
    void theIngressRoutesTheApiAndKeepsQuarkusEndpointsInside() {
        Rendered rendered = HelmChart.render(Map.of("ingress.enabled", true));
        JsonNode rule = rendered.only("Ingress").at("/spec/rules/0");
        String service = rendered.only("Service").at("/metadata/name").asText();

        List<String> paths = new ArrayList<>();
        for (JsonNode path : rule.at("/http/paths")) {
            paths.add(path.path("path").asText());
            assertThat(path.at("/backend/service/name").asText()).isEqualTo(service);
            assertThat(path.at("/backend/service/port/name").asText()).isEqualTo("http");
        }
        assertThat(paths).containsExactly("/api", "/webhooks", "/console");
        assertThatThrownBy(() -> HelmChart.render(Map.of("ingress.enabled", true, "ingress.paths[0]", "/q")))
                .hasMessageContaining("ingress");
    }

    @Test
    void theDisruptionBudgetAndTheAutoscalerTargetTheDeployment() {
        Rendered rendered = HelmChart.render(Map.of("podDisruptionBudget.enabled", true, "autoscaling.enabled", true));
        JsonNode deployment = rendered.only("Deployment");
        Map<String, String> podLabels = strings(deployment.at("/spec/template/metadata/labels"));

        assertThat(podLabels).containsAllEntriesOf(
                strings(rendered.only("PodDisruptionBudget").at("/spec/selector/matchLabels")));
        assertThat(rendered.only("PodDisruptionBudget").at("/spec/minAvailable").asInt()).isEqualTo(1);
        JsonNode hpa = rendered.only("HorizontalPodAutoscaler");
        assertThat(hpa.at("/spec/scaleTargetRef/kind").asText()).isEqualTo("Deployment");
        assertThat(hpa.at("/spec/scaleTargetRef/name").asText()).isEqualTo(deployment.at("/metadata/name").asText());
        assertThat(deployment.at("/spec/replicas").isMissingNode()).as("replicas are the autoscaler's").isTrue();
    }

    @Test
    void aDisruptionBudgetGuardsEveryDeploymentOfMoreThanOneReplica() {
        assertThat(HelmChart.render(Map.of()).all("PodDisruptionBudget")).hasSize(1);
        assertThat(HelmChart.render(Map.of("autoscaling.enabled", true)).all("PodDisruptionBudget")).hasSize(1);
        assertThat(HelmChart.render(Map.of("replicaCount", 1)).all("PodDisruptionBudget")).isEmpty();
        assertThat(HelmChart.render(Map.of("autoscaling.enabled", true, "autoscaling.minReplicas", 1))
                .all("PodDisruptionBudget")).isEmpty();
        assertThat(HelmChart.render(Map.of("podDisruptionBudget.enabled", false)).all("PodDisruptionBudget")).isEmpty();
    }

    @Test
    void replicasSpreadOverZonesAndNodesUnlessTheirSpreadIsGiven() {
        Rendered rendered = HelmChart.render(Map.of());
        JsonNode pod = rendered.only("Deployment").at("/spec/template");
        JsonNode spread = pod.at("/spec/topologySpreadConstraints");

        assertThat(StreamSupport.stream(spread.spliterator(), false).map(c -> c.path("topologyKey").asText()))
                .containsExactly("topology.kubernetes.io/zone", "kubernetes.io/hostname");
        for (JsonNode constraint : spread) {
            assertThat(constraint.path("whenUnsatisfiable").asText()).isEqualTo("ScheduleAnyway");
            assertThat(constraint.path("maxSkew").asInt()).isEqualTo(1);
            assertThat(strings(pod.at("/metadata/labels")))
                    .containsAllEntriesOf(strings(constraint.at("/labelSelector/matchLabels")));
        }
        assertThat(HelmChart.render(Map.of("topologySpread.enabled", false)).only("Deployment")
                .at("/spec/template/spec/topologySpreadConstraints").isMissingNode()).isTrue();
        JsonNode given = HelmChart.render(Map.of("topologySpreadConstraints[0].topologyKey", "example.com/rack",
                        "topologySpreadConstraints[0].maxSkew", 2, "topologySpreadConstraints[0].whenUnsatisfiable", "DoNotSchedule"))
                .only("Deployment").at("/spec/template/spec/topologySpreadConstraints");
        assertThat(given).hasSize(1);
        assertThat(given.at("/0/topologyKey").asText()).isEqualTo("example.com/rack");
    }

    @Test
    void onOpenShiftThePlatformPicksTheUserAndThePodStaysNonRoot() {
        JsonNode pod = HelmChart.render(Map.of("podSecurityContext.runAsUser", "null",
                "podSecurityContext.runAsGroup", "null", "podSecurityContext.fsGroup", "null"))
                .only("Deployment").at("/spec/template/spec/securityContext");

        assertThat(fieldNames(pod)).doesNotContain("runAsUser", "runAsGroup", "fsGroup");
        assertThat(pod.path("runAsNonRoot").asBoolean()).isTrue();
        assertThatThrownBy(() -> HelmChart.render(Map.of("podSecurityContext.runAsUser", 0)))
                .hasMessageContaining("runAsUser");
    }

    @Test
    void anImageCanBePinnedByItsDigest() throws IOException {
        String digest = "sha256:" + "ab12".repeat(16);

        assertThat(HelmChart.render(Map.of()).container().path("image").asText()).isEqualTo("onceguard:" + appVersion());
        assertThat(HelmChart.render(Map.of("image.digest", digest, "image.tag", "1.2")).container().path("image").asText())
                .isEqualTo("onceguard@" + digest);
        assertThatThrownBy(() -> HelmChart.render(Map.of("image.digest", "latest"))).hasMessageContaining("digest");
    }

    @Test
    void theDefaultImageIsTheChartsReleaseNeverASnapshot() throws IOException {
        assertThat(appVersion()).matches("[0-9]+\\.[0-9]+\\.[0-9]+").doesNotContainIgnoringCase("snapshot");
        assertThat(HelmChart.render(Map.of("image.tag", "0.2.0")).container().path("image").asText())
                .isEqualTo("onceguard:0.2.0");
    }

    @ParameterizedTest
    @CsvSource({"1.30.0", "1.31.4", "1.32.0", "1.33.1", "1.34.0", "1.35.0"})
    void everySupportedKubernetesVersionRendersTheSleepingPreStopHook(String kubeVersion) {
        Rendered rendered = HelmChart.renderFor(kubeVersion, Map.of());

        assertThat(rendered.container().at("/lifecycle/preStop/sleep/seconds").asInt()).isEqualTo(5);
    }

    @ParameterizedTest
    @CsvSource({"1.25.0", "1.27.3", "1.29.9"})
    void aClusterOlderThanThePreStopSleepIsRefused(String kubeVersion) throws IOException {
        assertThat(chartYaml().path("kubeVersion").asText()).isEqualTo(">=1.30.0-0");
        assertThatThrownBy(() -> HelmChart.renderFor(kubeVersion, Map.of())).hasMessageContaining("kubeVersion");
    }

    @Test
    void aPodDrainsWithinItsGracePeriod() {
        Rendered rendered = HelmChart.render(Map.of());
        JsonNode pod = rendered.only("Deployment").at("/spec/template/spec");

        assertThat(rendered.container().at("/lifecycle/preStop/sleep/seconds").asInt()).isEqualTo(5);
        assertThat(rendered.env().get("QUARKUS_SHUTDOWN_DELAY").path("value").asText()).isEqualTo("2s");
        assertThat(rendered.env().get("QUARKUS_SHUTDOWN_TIMEOUT").path("value").asText()).isEqualTo("20s");
        assertThat(pod.path("terminationGracePeriodSeconds").asInt()).isEqualTo(30);
        assertThatThrownBy(() -> HelmChart.render(Map.of("shutdown.timeout", "25s")))
                .hasMessageContaining("terminationGracePeriodSeconds");
        assertThat(HelmChart.render(Map.of("shutdown.timeout", "25s", "terminationGracePeriodSeconds", 40)).env()
                .get("QUARKUS_SHUTDOWN_TIMEOUT").path("value").asText()).isEqualTo("25s");
    }

    @Test
    void forwardedHeadersAreTrustedOnlyFromTheConfiguredProxies() {
        assertThat(HelmChart.render(Map.of()).env()).doesNotContainKey("QUARKUS_HTTP_PROXY_TRUSTED_PROXIES");
        assertThat(HelmChart.render(Map.of("proxy.trustedProxies[0]", "10.42.0.0/16", "proxy.trustedProxies[1]", "fd00::/8"))
                .env().get("QUARKUS_HTTP_PROXY_TRUSTED_PROXIES").path("value").asText()).isEqualTo("10.42.0.0/16,fd00::/8");
    }

    @Test
    void theNetworkPolicyLetsInTheIngressControllerAndPrometheusAndOutDnsTheDatabaseAndTheProvider() {
        Rendered rendered = HelmChart.render(NETWORK_POLICY);
        JsonNode policy = rendered.only("NetworkPolicy").path("spec");
        JsonNode pod = rendered.only("Deployment").at("/spec/template");

        assertThat(strings(pod.at("/metadata/labels"))).containsAllEntriesOf(strings(policy.at("/podSelector/matchLabels")));
        assertThat(texts(policy.path("policyTypes"))).containsExactly("Ingress", "Egress");
        assertThat(policy.path("ingress")).hasSize(2);
        assertThat(policy.at("/ingress/0/from/0/namespaceSelector/matchLabels/kubernetes.io~1metadata.name").asText())
                .isEqualTo("ingress-nginx");
        assertThat(policy.at("/ingress/1/from/0/namespaceSelector/matchLabels/kubernetes.io~1metadata.name").asText())
                .isEqualTo("monitoring");
        for (JsonNode rule : policy.path("ingress")) {
            assertThat(rule.at("/ports/0/port").asText()).isEqualTo("http");
            assertThat(rule.path("ports")).hasSize(1);
        }
        assertThat(policy.at("/egress/0/ports/0/port").asInt()).isEqualTo(53);
        assertThat(policy.at("/egress/0/to/0/podSelector/matchLabels/k8s-app").asText()).isEqualTo("kube-dns");
        assertThat(policy.at("/egress/1/ports/0/port").asInt()).isEqualTo(5432);
        assertThat(policy.at("/egress/1/to/0/ipBlock/cidr").asText()).isEqualTo("10.10.0.5/32");
        assertThat(policy.at("/egress/2/ports/0/port").asInt()).isEqualTo(443);
        assertThat(policy.at("/egress/2/to").findValuesAsText("cidr")).containsExactly("3.18.12.63/32", "3.130.192.231/32");
        assertThat(policy.path("egress")).hasSize(3);
        assertThat(policy.findValuesAsText("cidr")).doesNotContain("0.0.0.0/0");

        Map<String, Object> extra = new HashMap<>(NETWORK_POLICY);
        extra.put("networkPolicy.extraEgress[0].ports[0].port", 8443);
        assertThat(HelmChart.render(extra).only("NetworkPolicy").at("/spec/egress/3/ports/0/port").asInt()).isEqualTo(8443);
    }

    @Test
    void theNetworkPolicyOpensNoEgressUntilTheDatabaseAndTheProviderAreNamed() {
        assertThatThrownBy(() -> HelmChart.render(Map.of("networkPolicy.enabled", true)))
                .hasMessageContaining("networkPolicy.database.to");
        assertThatThrownBy(() -> HelmChart.render(Map.of("networkPolicy.enabled", true,
                "networkPolicy.database.to[0].ipBlock.cidr", "10.10.0.5/32"))).hasMessageContaining("networkPolicy.provider.cidrs");

        JsonNode sandboxOnly = HelmChart.render(Map.of("networkPolicy.enabled", true, "payments.provider", "sandbox",
                "sandbox.enabled", true, "networkPolicy.database.to[0].ipBlock.cidr", "10.10.0.5/32"))
                .only("NetworkPolicy").path("spec");
        assertThat(sandboxOnly.path("egress")).as("DNS and PostgreSQL only: the sandbox runs in the pod").hasSize(2);
    }

    @Test
    void theServiceMonitorScrapesQuarkusMetricsFromTheService() {
        Rendered rendered = HelmChart.render(Map.of("serviceMonitor.enabled", true));
        JsonNode monitor = rendered.only("ServiceMonitor");
        JsonNode service = rendered.only("Service");

        assertThat(monitor.at("/spec/endpoints/0/path").asText()).isEqualTo("/q/metrics");
        assertThat(monitor.at("/spec/endpoints/0/port").asText()).isEqualTo(service.at("/spec/ports/0/name").asText());
        assertThat(monitor.at("/spec/endpoints/0/honorLabels").asBoolean(false))
                .as("target labels (job, namespace, instance) stay Prometheus' own").isFalse();
        assertThat(strings(service.at("/metadata/labels")))
                .containsAllEntriesOf(strings(monitor.at("/spec/selector/matchLabels")));
        assertThat(texts(monitor.at("/spec/namespaceSelector/matchNames"))).containsExactly(HelmChart.NAMESPACE);
    }

    @Test
    void thePrometheusRuleHasEveryAlertEachWithARunbookSectionOfTheOperationsPage() throws IOException {
        List<JsonNode> rules = rules(HelmChart.render(Map.of("prometheusRule.enabled", true)));
        Set<String> anchors = operationsPageAnchors();

        assertThat(rules.stream().map(r -> r.path("alert").asText()).collect(Collectors.toSet())).isEqualTo(ALERTS);
        for (JsonNode rule : rules) {
            String runbook = rule.at("/annotations/runbook_url").asText();
            assertThat(runbook).as(rule.path("alert").asText())
                    .startsWith("https://github.com/onceguard/onceguard/blob/main/docs/operations.md#");
            assertThat(anchors).as("docs/operations.md section for " + runbook).contains(runbook.substring(runbook.indexOf('#') + 1));
            assertThat(rule.at("/annotations/summary").asText()).isNotBlank();
            assertThat(rule.at("/labels/severity").asText()).isIn("critical", "warning");
        }
        assertThat(rule(rules, "OnceguardOperationsStuck").path("expr").asText())
                .contains("onceguard_operations_processing{", "stale=\"true\"").endsWith("> 0");
        assertThat(rule(rules, "OnceguardOperationsStuck").path("for").asText()).isEqualTo("10m");
        assertThat(rule(rules, "OnceguardOutboxLagging").path("expr").asText())
                .contains("onceguard_outbox_oldest_age_seconds").endsWith("> 300");
        assertThat(rule(rules, "OnceguardUnknownPayments").path("expr").asText())
                .contains("onceguard_payments_unknown_oldest_age_seconds").endsWith("> 900");
        assertThat(rule(rules, "OnceguardConflictSpike").path("expr").asText())
                .contains("outcome=\"conflict\"", "onceguard_idempotency_requests_total");
        assertThat(rule(rules, "OnceguardDuplicateWebhookSpike").path("expr").asText())
                .contains("outcome=\"duplicate\"", "onceguard_webhook_deliveries_total");
    }

    @Test
    void eachScheduledJobIsAlertedAfterThreeOfItsIntervalsAndAJobSwitchedOffIsNot() {
        Map<String, String> thresholds = jobThresholds(HelmChart.render(Map.of("prometheusRule.enabled", true)));
        Map<String, String> withoutReconciliation = jobThresholds(HelmChart.render(Map.of("prometheusRule.enabled", true,
                "config.onceguard\\.jobs\\.reconciliation\\.every", "off")));

        assertThat(thresholds).containsExactlyInAnyOrderEntriesOf(Map.of(
                "retention-cleanup", "1800", "lease-recovery", "45", "reconciliation", "90", "outbox-relay", "3",
                "unpaid-order-expiry", "180"));
        assertThat(withoutReconciliation).doesNotContainKey("reconciliation").containsKey("lease-recovery");
    }

    @Test
    void theDashboardShipsForTheGrafanaSidecarAsItIsInTheChart() throws IOException {
        JsonNode configMap = HelmChart.render(Map.of("grafanaDashboard.enabled", true)).all("ConfigMap").stream()
                .filter(c -> c.at("/metadata/labels/grafana_dashboard").isTextual()).findFirst().orElseThrow();

        assertThat(configMap.at("/metadata/labels/grafana_dashboard").asText()).isEqualTo("1");
        assertThat(new ObjectMapper().readTree(configMap.at("/data/onceguard.json").asText()))
                .isEqualTo(HelmChart.dashboard());
    }

    @Test
    void theDashboardShowsWhatOperatorsWatch() {
        JsonNode dashboard = HelmChart.dashboard();
        List<String> expressions = HelmChart.dashboardExpressions();

        assertThat(dashboard.path("uid").asText()).isEqualTo("onceguard");
        assertThat(HelmChart.metricNames(expressions)).contains("onceguard_idempotency_requests_total",
                "onceguard_webhook_deliveries_total", "onceguard_operations_processing", "onceguard_outbox_pending",
                "onceguard_outbox_oldest_age_seconds", "onceguard_payments_unknown",
                "onceguard_payments_unknown_oldest_age_seconds", "onceguard_job_last_success_timestamp_seconds",
                "http_server_requests_seconds_bucket", "agroal_active_count", "agroal_awaiting_count",
                "onceguard_provider_call_duration_seconds_bucket", "onceguard_provider_calls_total");
        assertThat(expressions).anyMatch(e -> e.contains("status=~\"5..\""))
                .anyMatch(e -> e.startsWith("histogram_quantile(0.99, sum by (le, provider, call)"));
        assertThat(expressions).anyMatch(e -> e.contains("outcome=\"replayed\""))
                .anyMatch(e -> e.contains("outcome=\"conflict\""))
                .anyMatch(e -> e.contains("outcome=\"duplicate\""))
                .anyMatch(e -> e.contains("stale=\"true\""))
                .anyMatch(e -> e.startsWith("histogram_quantile(0.5,"))
                .anyMatch(e -> e.startsWith("histogram_quantile(0.99,"));
        for (JsonNode panel : dashboard.path("panels")) {
            if (!panel.path("type").asText().equals("row")) {
                assertThat(panel.at("/datasource/uid").asText()).as(panel.path("title").asText()).isEqualTo("${datasource}");
                assertThat(panel.path("targets")).as(panel.path("title").asText()).isNotEmpty();
            }
        }
    }

    @Test
    void theNotesSayWhereTheServiceIsAndWarnAboutWhatIsMissing() {
        String bare = HelmChart.notes(Map.of());
        String complete = HelmChart.notes(Map.of("jwt.publicKeyLocation", "https://idp.example.com/jwks.json",
                "jwt.audiences", "https://shop.example.com/api", "stripe.existingSecret", "onceguard-stripe", "ingress.enabled", true,
                "console.sessionKey.existingSecret", "onceguard-console-session"));

        assertThat(bare).contains("og-onceguard.shop.svc:8080/api", "/q/health/ready", "onceguard-database",
                "no JWT verification key", "stripe.existingSecret is empty", "no console.sessionKey.existingSecret");
        assertThat(complete).contains("http://onceguard.example.com (/api, /webhooks, /console)")
                .doesNotContain("WARNING");
    }

    @Test
    void theChartReadmeDocumentsEveryValue() throws IOException {
        JsonNode values = new YAMLMapper().readTree(HelmChart.CHART.resolve("values.yaml").toFile());
        String readme = Files.readString(HelmChart.CHART.resolve("README.md"));
        List<String> paths = new ArrayList<>();
        leaves("", values, paths);

        assertThat(paths).hasSizeGreaterThan(50);
        assertThat(paths.stream().filter(path -> !readme.contains("`" + path + "`")).toList())
                .as("values missing from helm/onceguard/README.md").isEmpty();
    }

    /** Paths of values that the schema does not list where it names an object's only properties. */
    private static JsonNode chartYaml() throws IOException {
        return new YAMLMapper().readTree(HelmChart.CHART.resolve("Chart.yaml").toFile());
    }

    private static String appVersion() throws IOException {
        return chartYaml().path("appVersion").asText();
    }

    private static void undeclared(String path, JsonNode values, JsonNode schema, List<String> into) {
        if (!values.isObject() || !schema.has("properties") || schema.has("patternProperties")
                || schema.path("additionalProperties").asBoolean(true)) {
            return;
        }
        values.fields().forEachRemaining(entry -> {
            String child = path.isEmpty() ? entry.getKey() : path + "." + entry.getKey();
            if (schema.path("properties").has(entry.getKey())) {
                undeclared(child, entry.getValue(), schema.path("properties").path(entry.getKey()), into);
            } else {
                into.add(child);
            }
        });
    }

    /**
     * Dotted paths of the values' leaves; the entries of {@code config} are named by their property alone, and a
     * Kubernetes label selector ({@code ...Selector}) is one value.
     */
    private static void leaves(String path, JsonNode node, List<String> into) {
        if (!node.isObject() || node.isEmpty() || path.endsWith("Selector")) {
            into.add(path);
            return;
        }
        node.fields().forEachRemaining(entry -> leaves(path.equals("config") ? entry.getKey()
                : path.isEmpty() ? entry.getKey() : path + "." + entry.getKey(), entry.getValue(), into));
    }

    private static List<JsonNode> rules(Rendered rendered) {
        List<JsonNode> rules = new ArrayList<>();
        rendered.only("PrometheusRule").at("/spec/groups").forEach(group -> group.path("rules").forEach(rules::add));
        return rules;
    }

    private static JsonNode rule(List<JsonNode> rules, String alert) {
        return rules.stream().filter(r -> r.path("alert").asText().equals(alert)).findFirst().orElseThrow();
    }

    /** Job name to the seconds in its "not succeeding" expression. */
    private static Map<String, String> jobThresholds(Rendered rendered) {
        Map<String, String> thresholds = new HashMap<>();
        for (JsonNode rule : rules(rendered)) {
            if (rule.path("alert").asText().equals("OnceguardJobNotSucceeding")) {
                String expr = rule.path("expr").asText();
                String job = expr.replaceAll("(?s).*job_name=\"([a-z-]+)\".*", "$1");
                thresholds.put(job, expr.replaceAll("(?s).*> ([0-9]+)$", "$1"));
            }
        }
        return thresholds;
    }

    /** The anchors GitHub gives the headings of the operations page, where the runbooks are. */
    private static Set<String> operationsPageAnchors() throws IOException {
        Set<String> anchors = new TreeSet<>();
        for (String line : Files.readAllLines(Path.of("docs", "operations.md"))) {
            if (line.startsWith("#")) {
                anchors.add(line.replaceFirst("^#+\\s*", "").trim().toLowerCase(Locale.ROOT)
                        .replaceAll("[^a-z0-9 _-]", "").replace(' ', '-'));
            }
        }
        return anchors;
    }

    private static JsonNode find(JsonNode array, String field, String value) {
        return StreamSupport.stream(array.spliterator(), false).filter(n -> n.path(field).asText().equals(value))
                .findFirst().orElseThrow(() -> new AssertionError("no " + field + "=" + value + " in " + array));
    }

    private static List<String> texts(JsonNode array) {
        return StreamSupport.stream(array.spliterator(), false).map(JsonNode::asText).toList();
    }

    private static List<String> fieldNames(JsonNode object) {
        List<String> names = new ArrayList<>();
        object.fieldNames().forEachRemaining(names::add);
        return names;
    }

    private static Map<String, String> strings(JsonNode object) {
        Map<String, String> map = new HashMap<>();
        object.fields().forEachRemaining(e -> map.put(e.getKey(), e.getValue().asText()));
        return map;
    }
}
