package dev.onceguard.operations;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The chart's alert rules, rendered with the default thresholds, checked and unit-tested by {@code promtool}
 * against the series the service exports (src/test/resources/prometheus/onceguard-alerts.test.yaml).
 */
class AlertRulesTest {

    static final String RUNBOOKS = "https://runbooks.test/onceguard";

    private static final ExternalTool PROMTOOL = new ExternalTool("promtool",
            "install Debian's prometheus package (apt-get install -y prometheus)");
    private static final Path UNIT_TESTS = Path.of("src", "test", "resources", "prometheus", "onceguard-alerts.test.yaml");
    private static final Path WORK = Path.of("target", "promtool");
    private static final Pattern AGGREGATION = Pattern.compile("\\b(sum|min|max|avg|count)\\s*(by\\s*\\(([^)]*)\\))?\\s*\\(");

    private static List<JsonNode> rules;

    @BeforeAll
    static void renderTheRulesFile() throws IOException {
        JsonNode spec = HelmChart.render(Map.of("prometheusRule.enabled", true, "prometheusRule.runbookBaseUrl", RUNBOOKS))
                .only("PrometheusRule").path("spec");
        rules = new ArrayList<>();
        spec.path("groups").forEach(group -> group.path("rules").forEach(rules::add));
        Files.createDirectories(WORK);
        ObjectNode file = JsonNodeFactory.instance.objectNode().set("groups", spec.path("groups"));
        new YAMLMapper().writeValue(WORK.resolve("onceguard-rules.yaml").toFile(), file);
        Files.copy(UNIT_TESTS, WORK.resolve(UNIT_TESTS.getFileName()), StandardCopyOption.REPLACE_EXISTING);
    }

    @Test
    void everyAlertWaitsBeforeFiringAndKeepsTheNamespaceInItsAggregation() {
        for (JsonNode rule : rules) {
            String alert = rule.path("alert").asText();
            String expr = rule.path("expr").asText();
            assertThat(rule.path("for").asText()).as(alert + " for:").matches("[0-9]+[smh]");
            Matcher aggregation = AGGREGATION.matcher(expr);
            int found = 0;
            while (aggregation.find()) {
                found++;
                assertThat(aggregation.group(3)).as(alert + ": " + aggregation.group()).isNotNull();
                assertThat(aggregation.group(3).split("\\s*,\\s*")).as(alert + ": " + aggregation.group()).contains("namespace");
            }
            assertThat(found).as(alert + " aggregates").isPositive();
        }
    }

    @Test
    void everyAlertHasAUnitTestThatFiresItAndOneThatKeepsItQuiet() throws IOException {
        Set<String> alerts = new TreeSet<>();
        rules.forEach(rule -> alerts.add(rule.path("alert").asText()));
        Set<String> fired = new TreeSet<>();
        Set<String> quiet = new TreeSet<>();
        for (JsonNode test : new YAMLMapper().readTree(UNIT_TESTS.toFile()).path("tests")) {
            for (JsonNode check : test.path("alert_rule_test")) {
                (check.path("exp_alerts").isEmpty() ? quiet : fired).add(check.path("alertname").asText());
            }
        }

        assertThat(alerts).hasSize(12);
        assertThat(fired).as("alerts with a firing unit test").isEqualTo(alerts);
        assertThat(quiet).as("alerts with a quiet unit test").isEqualTo(alerts);
    }

    @Test
    void promtoolAcceptsTheRules() {
        PROMTOOL.assumeInstalled("promtool check rules");

        // Without --lint-fatal promtool prints lint errors (duplicate rules) and still exits 0.
        ExternalTool.Result check = PROMTOOL.run(WORK, 60, "check", "rules", "--lint-fatal", "onceguard-rules.yaml");

        assertThat(check.exitCode()).as(check.output()).isZero();
        assertThat(check.output()).as(check.output()).doesNotContain("FAILED");
    }

    @Test
    void theRulesFireAsTheirUnitTestsExpect() {
        PROMTOOL.assumeInstalled("promtool test rules");

        ExternalTool.Result test = PROMTOOL.run(WORK, 120, "test", "rules", UNIT_TESTS.getFileName().toString());

        assertThat(test.exitCode()).as(test.output()).isZero();
    }
}
