package dev.onceguard.operations;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import com.marcnuri.helm.Helm;
import com.marcnuri.helm.InstallCommand;
import com.marcnuri.helm.LintResult;
import com.marcnuri.helm.TemplateCommand;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The chart in helm/onceguard, linted and rendered by the Helm library that helm-java bundles. */
final class HelmChart {

    static final Path CHART = Path.of("helm", "onceguard");
    static final Path DASHBOARD = CHART.resolve("dashboards").resolve("onceguard.json");
    static final String NAMESPACE = "shop";
    static final String RELEASE = "og";
    /** The oldest Kubernetes the chart supports (Chart.yaml kubeVersion); the bundled Helm would assume 1.20. */
    static final String KUBERNETES = "1.30.0";

    private static final ObjectMapper YAML = new YAMLMapper();
    private static final Pattern METRIC = Pattern.compile("\\b(onceguard_[a-z0-9_]+|http_server_requests_[a-z0-9_]+|agroal_[a-z0-9_]+)\\b");

    private HelmChart() {
    }

    static LintResult lint() {
        return new Helm(CHART).lint().strict().call();
    }

    /** The objects rendered with the default values overridden by {@code sets} (Helm {@code --set} syntax). */
    static Rendered render(Map<String, ?> sets) {
        return renderFor(KUBERNETES, sets);
    }

    /** As {@link #render}, for a cluster of that Kubernetes version ({@code helm template --kube-version}). */
    static Rendered renderFor(String kubeVersion, Map<String, ?> sets) {
        TemplateCommand template = new Helm(CHART).template().withName(RELEASE).withNamespace(NAMESPACE)
                .withKubeVersion(kubeVersion);
        for (Map.Entry<String, ?> set : sets.entrySet()) {
            template = template.set(set.getKey(), set.getValue());
        }
        return new Rendered(parse(template.call()));
    }

    /** NOTES.txt as {@code helm install --dry-run} prints it, with no cluster. */
    static String notes(Map<String, ?> sets) {
        InstallCommand install = new Helm(CHART).install().withName(RELEASE).withNamespace(NAMESPACE).dryRun()
                .clientOnly().withKubeVersion(KUBERNETES);
        for (Map.Entry<String, ?> set : sets.entrySet()) {
            install = install.set(set.getKey(), set.getValue());
        }
        String output = install.call().getOutput();
        return output.substring(output.indexOf("NOTES:"));
    }

    private static List<JsonNode> parse(String manifests) {
        try {
            List<JsonNode> objects = new ArrayList<>();
            var documents = YAML.readerFor(JsonNode.class).readValues(new YAMLFactory().createParser(manifests));
            while (documents.hasNext()) {
                JsonNode object = (JsonNode) documents.next();
                if (object != null && !object.isNull() && !object.isEmpty()) {
                    objects.add(object);
                }
            }
            return objects;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static JsonNode dashboard() {
        try {
            return new ObjectMapper().readTree(DASHBOARD.toFile());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Every PromQL expression of the dashboard's panels. */
    static List<String> dashboardExpressions() {
        List<String> expressions = new ArrayList<>();
        dashboard().path("panels").forEach(panel -> panel.path("targets")
                .forEach(target -> expressions.add(target.path("expr").asText())));
        return expressions;
    }

    /** Every alert expression of the PrometheusRule, rendered with the default thresholds. */
    static List<String> alertExpressions() {
        List<String> expressions = new ArrayList<>();
        render(Map.of("prometheusRule.enabled", true)).only("PrometheusRule").path("spec").path("groups")
                .forEach(group -> group.path("rules").forEach(rule -> expressions.add(rule.path("expr").asText())));
        return expressions;
    }

    /** The {@code onceguard_*}, {@code http_server_requests_*} and {@code agroal_*} series named in PromQL expressions. */
    static List<String> metricNames(List<String> expressions) {
        List<String> names = new ArrayList<>();
        for (String expression : expressions) {
            Matcher matcher = METRIC.matcher(expression);
            while (matcher.find()) {
                if (!names.contains(matcher.group(1))) {
                    names.add(matcher.group(1));
                }
            }
        }
        return names;
    }

    record Rendered(List<JsonNode> objects) {

        List<String> kinds() {
            return objects.stream().map(o -> o.path("kind").asText()).sorted().toList();
        }

        List<JsonNode> all(String kind) {
            return objects.stream().filter(o -> o.path("kind").asText().equals(kind)).toList();
        }

        JsonNode only(String kind) {
            List<JsonNode> matching = all(kind);
            if (matching.size() != 1) {
                throw new AssertionError("expected one " + kind + ", rendered " + kinds());
            }
            return matching.get(0);
        }

        JsonNode container() {
            return only("Deployment").path("spec").path("template").path("spec").path("containers").get(0);
        }

        /** The container's environment: name to its EnvVar object. */
        Map<String, JsonNode> env() {
            Map<String, JsonNode> env = new LinkedHashMap<>();
            container().path("env").forEach(var -> {
                if (env.put(var.path("name").asText(), var) != null) {
                    throw new AssertionError("environment variable set twice: " + var.path("name").asText());
                }
            });
            return env;
        }
    }
}
