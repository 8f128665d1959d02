package dev.onceguard.operations;

import com.fasterxml.jackson.databind.JsonNode;
import dev.onceguard.TestTokens;
import io.quarkus.test.junit.QuarkusTest;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import static io.restassured.RestAssured.given;
import static io.restassured.RestAssured.when;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.containsString;

/**
 * What the chart promises about the running service: every series its dashboard and alerts read is exported, and its
 * probes answer. The {@code onceguard_*} series are registered with zero values at start-up, so they are read first,
 * before this class sends any traffic (other classes may run before it on the same application; presence does not
 * depend on that). The latency histogram exists per endpoint once the endpoint has served a request.
 */
@QuarkusTest
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class DashboardMetricsTest {

    private static final ExternalTool PROMTOOL = new ExternalTool("promtool",
            "install Debian's prometheus package (apt-get install -y prometheus)");

    @Test
    @Order(1)
    void everyOnceguardAndPoolSeriesOfTheDashboardAndTheAlertsIsExportedFromStartUp() {
        String scrape = when().get("/q/metrics").then().statusCode(200).extract().asString();

        List<String> wanted = wantedNames().stream().filter(n -> n.startsWith("onceguard_") || n.startsWith("agroal_")).toList();

        assertThat(wanted).isNotEmpty();
        assertThat(missing(wanted, scrape)).as("named in the dashboard or the alerts, absent from /q/metrics").isEmpty();
    }

    @Test
    @Order(2)
    void noSeriesExportsALabelThatPrometheusSetsOnTheTarget() {
        String scrape = when().get("/q/metrics").then().statusCode(200).extract().asString();
        List<String> series = scrape.lines().filter(l -> !l.startsWith("#") && !l.isBlank()).toList();

        assertThat(series).filteredOn(l -> l.matches("[a-z_:]+\\{(.*[,{])?(job|instance|namespace)=\".*"))
                .as("scraped with honorLabels off, these labels would be renamed exported_*").isEmpty();
        assertThat(series).anyMatch(l -> l.startsWith("onceguard_job_last_success_timestamp_seconds{")
                && l.contains("job_name=\"outbox-relay\""));
    }

    @Test
    @Order(3)
    void theLatencyHistogramOfTheDashboardIsPublishedWithItsBuckets() {
        // A 2xx: a 4xx may be counted without its path (suppress4xx-errors keeps the uri values bounded).
        given().header("Authorization", TestTokens.bearer(TestTokens.newUser())).get("/api/products").then().statusCode(200);

        String scrape = when().get("/q/metrics").then().statusCode(200).extract().asString();
        List<String> wanted = wantedNames().stream().filter(n -> n.startsWith("http_server_requests_")).toList();
        Set<String> buckets = scrape.lines()
                .filter(l -> l.startsWith("http_server_requests_seconds_bucket{") && l.contains("uri=\"/api/products\"")
                        && l.contains("status=\"200\""))
                .map(l -> l.replaceAll(".*le=\"([^\"]+)\".*", "$1"))
                .collect(Collectors.toSet());

        assertThat(wanted).contains("http_server_requests_seconds_bucket");
        assertThat(missing(wanted, scrape)).isEmpty();
        assertThat(buckets).contains("0.002", "0.1", "1.0", "10.0", "+Inf").hasSize(13);
    }

    @Test
    @Order(4)
    void theChartsProbesAnswerOnTheirPaths() {
        JsonNode container = HelmChart.render(Map.of()).container();

        for (String probe : List.of("startupProbe", "livenessProbe", "readinessProbe")) {
            String path = container.path(probe).at("/httpGet/path").asText();
            when().get(path).then().statusCode(200);
        }
    }

    @Test
    @Order(5)
    void theScrapeInPrometheusTextPassesPromtoolWithoutAWarningAboutOnceguardSeries() throws IOException {
        PROMTOOL.assumeInstalled("promtool check metrics");
        // Without this Accept header /q/metrics answers OpenMetrics, which promtool check metrics cannot parse.
        String scrape = given().header("Accept", "text/plain; version=0.0.4").get("/q/metrics").then().statusCode(200)
                .contentType(containsString("text/plain")).extract().asString();
        Path work = Files.createDirectories(Path.of("target", "promtool"));
        Path file = work.resolve("scrape.prom");
        Files.writeString(file, scrape);

        ExternalTool.Result check = PROMTOOL.run(work, file, 60, "check", "metrics");

        assertThat(check.output()).as("promtool parsed the scrape").doesNotContain("error while linting");
        assertThat(check.output().lines().filter(l -> l.contains("onceguard_")).toList())
                .as("promtool check metrics about onceguard_* series").isEmpty();
    }

    private static List<String> wantedNames() {
        List<String> expressions = new ArrayList<>(HelmChart.dashboardExpressions());
        expressions.addAll(HelmChart.alertExpressions());
        return HelmChart.metricNames(expressions);
    }

    private static List<String> missing(List<String> names, String scrape) {
        return names.stream()
                .filter(name -> scrape.lines().noneMatch(l -> l.startsWith(name + "{") || l.startsWith(name + " ")))
                .toList();
    }
}
