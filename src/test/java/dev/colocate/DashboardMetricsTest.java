package dev.colocate;

import static dev.colocate.testing.TestNodes.aNode;
import static dev.colocate.testing.TestPods.aPod;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.colocate.scheduler.ExtenderTypes.ExtenderFilterResult;
import dev.colocate.testing.SchedulerStandIn;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.kubernetes.client.WithKubernetesTestServer;
import io.restassured.RestAssured;
import jakarta.inject.Inject;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The Grafana dashboard (kubernetes/monitoring, and its copy in the chart) queries only series colocate exports: a
 * renamed meter or label would otherwise leave a panel silently empty. The app is made to record the meters the
 * dashboard uses (a shared node synced, an extender filter and a refused bind, calls to a Slurm that does not answer),
 * then every metric name and selector label the dashboard's queries use is looked up in /q/metrics.
 */
@QuarkusTest
@WithKubernetesTestServer(crud = true)
@QuarkusTestResource(value = UnreachableSlurm.class, restrictToAnnotatedClass = true)
public class DashboardMetricsTest {

    static final Path DASHBOARD = Path.of("kubernetes", "monitoring", "colocate-dashboard.json");
    static final Path CHART_DASHBOARD = Path.of("helm", "colocate", "dashboards", "colocate.json");

    /**
     * Queried series that only exist after an event that needs a live Slurm, so this test cannot make them. Empty
     * today: the hold counters and waste gauges are registered at start, and a Slurm that does not answer still times
     * its calls (outcome "unavailable"). Name each entry's event when one is added.
     */
    static final Set<String> ONLY_WITH_SLURM = Set.of();

    private static final Pattern STRING = Pattern.compile("\"(?:[^\"\\\\]|\\\\.)*\"");
    private static final Pattern RANGE = Pattern.compile("\\[[^\\]]*\\]");
    private static final Pattern VARIABLE = Pattern.compile("\\$\\{?[a-zA-Z_][a-zA-Z0-9_]*\\}?");
    private static final Pattern BRACES = Pattern.compile("\\{[^}]*\\}");
    private static final Pattern SELECTOR = Pattern.compile("([a-zA-Z_:][a-zA-Z0-9_:]*)\\s*\\{([^}]*)\\}");
    private static final Pattern MATCHER = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)\\s*(?:=~|!~|!=|=)");
    private static final Pattern GROUPING =
            Pattern.compile("\\b(?:by|without|on|ignoring|group_left|group_right)\\s*\\(([^)]*)\\)");
    /** An identifier that is not a function call: a metric name, once labels, strings and ranges are gone. */
    private static final Pattern NAME = Pattern.compile("(?<![\\w.:])([a-zA-Z_:][a-zA-Z0-9_:]*)(?!\\s*\\()(?![\\w:])");
    private static final Set<String> KEYWORDS = Set.of("and", "or", "unless", "bool", "offset", "by", "without", "on",
            "ignoring", "group_left", "group_right", "inf", "nan");
    private static final Pattern LABEL_VALUES = Pattern.compile(
            "^\\s*label_values\\(\\s*([a-zA-Z_:][a-zA-Z0-9_:]*)\\s*,\\s*([a-zA-Z_][a-zA-Z0-9_]*)\\s*\\)\\s*$");
    private static final Pattern SAMPLE = Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\\{(.*)\\})?\\s");
    private static final Pattern SAMPLE_LABEL = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"");

    @Inject
    KubernetesClient client;

    /** One PromQL query of the dashboard: the metric names it reads, and the labels it selects or groups by. */
    record Query(String where, Set<String> names, Map<String, Set<String>> selected, Set<String> grouped) {
    }

    /** The metric names of a PromQL expression: its identifiers, less functions, keywords, labels and strings. */
    static Query parse(String where, String expr) {
        Map<String, Set<String>> selected = new TreeMap<>();
        Matcher selector = SELECTOR.matcher(expr);
        while (selector.find()) {
            Set<String> labels = selected.computeIfAbsent(selector.group(1), n -> new TreeSet<>());
            Matcher matcher = MATCHER.matcher(STRING.matcher(selector.group(2)).replaceAll("\"\""));
            while (matcher.find()) {
                labels.add(matcher.group(1));
            }
        }
        String bare = STRING.matcher(expr).replaceAll("\"\"");
        bare = RANGE.matcher(bare).replaceAll("");
        bare = VARIABLE.matcher(bare).replaceAll("");
        bare = BRACES.matcher(bare).replaceAll("");
        Set<String> grouped = new TreeSet<>();
        Matcher grouping = GROUPING.matcher(bare);
        while (grouping.find()) {
            for (String label : grouping.group(1).split(",")) {
                if (!label.isBlank()) {
                    grouped.add(label.strip());
                }
            }
        }
        bare = GROUPING.matcher(bare).replaceAll("");
        Set<String> names = new TreeSet<>();
        Matcher name = NAME.matcher(bare);
        while (name.find()) {
            if (!KEYWORDS.contains(name.group(1).toLowerCase())) {
                names.add(name.group(1));
            }
        }
        return new Query(where, names, selected, grouped);
    }

    /** Every query of the dashboard: each panel target's expr, and the node variable's label_values. */
    static List<Query> queries(JsonNode dashboard) {
        List<Query> queries = new ArrayList<>();
        for (JsonNode panel : dashboard.path("panels")) {
            for (JsonNode target : panel.path("targets")) {
                queries.add(parse("panel \"" + panel.path("title").asText() + "\" " + target.path("refId").asText(),
                        target.path("expr").asText()));
            }
        }
        for (JsonNode variable : dashboard.path("templating").path("list")) {
            if (!variable.path("type").asText().equals("query")) {
                continue;
            }
            JsonNode query = variable.path("query");
            String text = query.isObject() ? query.path("query").asText() : query.asText();
            Matcher labelValues = LABEL_VALUES.matcher(text);
            assertThat(labelValues.matches()).as("variable %s: %s", variable.path("name").asText(), text).isTrue();
            queries.add(new Query("variable $" + variable.path("name").asText(), Set.of(labelValues.group(1)),
                    Map.of(labelValues.group(1), Set.of(labelValues.group(2))), Set.of()));
        }
        return queries;
    }

    /** The series names /q/metrics exports, each with the label names it carries. */
    static Map<String, Set<String>> exported(String scrape) {
        Map<String, Set<String>> series = new TreeMap<>();
        for (String line : scrape.split("\n")) {
            Matcher sample = SAMPLE.matcher(line);
            if (line.startsWith("#") || !sample.find()) {
                continue;
            }
            Set<String> labels = series.computeIfAbsent(sample.group(1), n -> new TreeSet<>());
            if (sample.group(2) != null) {
                Matcher label = SAMPLE_LABEL.matcher(sample.group(2));
                while (label.find()) {
                    labels.add(label.group(1));
                }
            }
        }
        return series;
    }

    /** What the dashboard asks for that the scrape lacks, one line per query and name or label. */
    static List<String> missing(List<Query> queries, Map<String, Set<String>> exported) {
        List<String> missing = new ArrayList<>();
        for (Query query : queries) {
            Set<String> labelsOfQuery = new TreeSet<>();
            for (String name : query.names()) {
                if (ONLY_WITH_SLURM.contains(name)) {
                    continue;
                }
                if (!exported.containsKey(name)) {
                    missing.add(query.where() + ": metric " + name);
                    continue;
                }
                labelsOfQuery.addAll(exported.get(name));
                for (String label : query.selected().getOrDefault(name, Set.of())) {
                    if (!exported.get(name).contains(label)) {
                        missing.add(query.where() + ": label " + label + " of " + name);
                    }
                }
            }
            for (String label : query.grouped()) {
                if (!labelsOfQuery.contains(label) && query.names().stream().noneMatch(ONLY_WITH_SLURM::contains)) {
                    missing.add(query.where() + ": label " + label + " to group by");
                }
            }
        }
        return missing;
    }

    @Test
    void theQueryParserFindsMetricNamesAndLabelsButNotFunctionsOrVariables() {
        Query query = parse("sample", "sum by (operation, outcome) (rate(colocate_slurm_requests_seconds_count"
                + "{outcome!=\"success\", node=~\"$node\"}[$__rate_interval])) / on(operation) group_left "
                + "max(up offset 5m) > 1e3 and time() > bool 0");

        assertThat(query.names()).containsExactlyInAnyOrder("colocate_slurm_requests_seconds_count", "up");
        assertThat(query.selected()).isEqualTo(Map.of("colocate_slurm_requests_seconds_count",
                Set.of("outcome", "node")));
        assertThat(query.grouped()).containsExactlyInAnyOrder("operation", "outcome");
        assertThat(missing(List.of(query), Map.of("colocate_slurm_requests_seconds_count", Set.of("operation"))))
                .containsExactlyInAnyOrder("sample: metric up",
                        "sample: label outcome of colocate_slurm_requests_seconds_count",
                        "sample: label node of colocate_slurm_requests_seconds_count",
                        "sample: label outcome to group by");
    }

    @Test
    void theDashboardQueriesOnlyMetricsColocateExports() throws IOException {
        List<Query> queries = queries(new ObjectMapper().readTree(DASHBOARD.toFile()));
        assertThat(queries.stream().flatMap(q -> q.names().stream()))
                .as("a parse that finds nothing would pass anything")
                .contains("colocate_node_allocated", "colocate_admission_refused_total",
                        "colocate_slurm_requests_seconds_count", "colocate_overcommitted_nodes",
                        "colocate_drained_nodes", "colocate_node_drained");

        // the meters that exist only once something happened: a shared node synced (colocate_node_allocated),
        // extender calls (colocate_admission_seconds, colocate_filter_rejected_nodes_total) and a refused bind
        // (colocate_admission_refused_total); the copilot's calls to the absent Slurm time colocate_slurm_requests
        client.nodes().resource(aNode("k-1").sharedWith("node1").allocatable("8", "16Gi").tainted().obj()).create();
        Pod pod = client.resource(aPod("web-1").scheduledBy("colocate-scheduler").requesting("1", "1Gi").obj())
                .create();
        if (pod.getMetadata().getUid() == null) {
            pod.getMetadata().setUid(UUID.randomUUID().toString());
            pod = client.resource(pod).update();
        }
        SchedulerStandIn scheduler = new SchedulerStandIn(URI.create(RestAssured.baseURI + ":" + RestAssured.port));
        Pod pending = pod;
        // the extender answers once the copilot has started; then k-1 cannot be judged without Slurm
        await().atMost(Duration.ofSeconds(30)).ignoreExceptions().untilAsserted(() -> {
            ExtenderFilterResult filtered = scheduler.filter(pending, List.of("k-1"));
            assertThat(filtered.failedAndUnresolvableNodes()).containsKey("k-1");
        });
        assertThat(scheduler.bind(pending, "k-1")).as("a bind without Slurm is refused").isNotNull();

        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            Map<String, Set<String>> exported = exported(given().accept("text/plain").get("/q/metrics").asString());
            assertThat(missing(queries, exported))
                    .as("queried by %s but not in /q/metrics", DASHBOARD)
                    .isEmpty();
        });
    }

    @Test
    void theChartShipsTheSameDashboard() throws IOException {
        assertThat(Files.readString(CHART_DASHBOARD))
                .as("%s must be a copy of %s", CHART_DASHBOARD, DASHBOARD)
                .isEqualTo(Files.readString(DASHBOARD));
    }
}
