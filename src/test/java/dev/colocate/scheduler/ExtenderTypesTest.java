package dev.colocate.scheduler;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.colocate.scheduler.ExtenderTypes.ExtenderArgs;
import dev.colocate.scheduler.ExtenderTypes.ExtenderBindingArgs;
import dev.colocate.scheduler.ExtenderTypes.ExtenderBindingResult;
import dev.colocate.scheduler.ExtenderTypes.ExtenderFilterResult;
import dev.colocate.scheduler.ExtenderTypes.HostPriority;
import java.io.IOException;
import java.io.InputStream;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The extender JSON as kube-scheduler writes and reads it: Go field names, no JSON tags. */
class ExtenderTypesTest {

    private final ObjectMapper json = new ObjectMapper();

    private <T> T fixture(String name, Class<T> type) throws IOException {
        try (InputStream in = getClass().getResourceAsStream("/extender/" + name)) {
            return json.readValue(in, type);
        }
    }

    @Test
    void filterArgsByNameWhenTheExtenderIsNodeCacheCapable() throws IOException {
        ExtenderArgs args = fixture("filter-args-nodenames.json", ExtenderArgs.class);

        assertThat(args.pod().getMetadata().getName()).isEqualTo("web-1");
        assertThat(args.pod().getSpec().getContainers().get(0).getResources().getRequests().get("cpu").toString())
                .isEqualTo("1");
        assertThat(args.candidates()).containsExactly("node-a", "node-b");
        assertThat(args.sentNodes()).isFalse();
    }

    @Test
    void filterArgsWithFullNodes() throws IOException {
        ExtenderArgs args = fixture("filter-args-nodes.json", ExtenderArgs.class);

        assertThat(args.candidates()).containsExactly("node-a", "node-b");
        assertThat(args.sentNodes()).isTrue();
        assertThat(args.nodes().getItems().get(0).getStatus().getAllocatable()).containsKey("cpu");
    }

    @Test
    void lowerCaseFieldNamesAreReadToo() throws IOException {
        ExtenderArgs args = json.readValue("{\"pod\":{\"metadata\":{\"name\":\"p\"}},\"nodenames\":[\"n\"]}",
                ExtenderArgs.class);

        assertThat(args.candidates()).containsExactly("n");
    }

    @Test
    void filterResultUsesGoFieldNamesAndOmitsWhatIsUnset() {
        JsonNode out = json.valueToTree(new ExtenderFilterResult(null, List.of("node-b"),
                Map.of("node-a", "Slurm holds 3 CPU, Kubernetes 2735m, pod needs 3, node has 8"), null, null));

        assertThat(out.fieldNames()).toIterable().containsExactlyInAnyOrder("NodeNames", "FailedNodes");
        assertThat(out.path("FailedNodes").path("node-a").asText()).startsWith("Slurm holds 3 CPU");
    }

    @Test
    void prioritizeAnswersAHostPriorityList() {
        JsonNode out = json.valueToTree(List.of(new HostPriority("node-a", 7), new HostPriority("node-b", 0)));

        assertThat(out.toString()).isEqualTo("[{\"Host\":\"node-a\",\"Score\":7},{\"Host\":\"node-b\",\"Score\":0}]");
    }

    @Test
    void bindArgsAndResult() throws IOException {
        ExtenderBindingArgs args = fixture("bind-args.json", ExtenderBindingArgs.class);

        assertThat(args.podName()).isEqualTo("web-1");
        assertThat(args.podNamespace()).isEqualTo("default");
        assertThat(args.podUid()).isEqualTo("7d0c1a4e-2c55-4b1e-9a2f-0f7f3c9c5b11");
        assertThat(args.node()).isEqualTo("node-a");
        assertThat(json.valueToTree(new ExtenderBindingResult(null)).toString()).isEqualTo("{}");
        assertThat(json.valueToTree(new ExtenderBindingResult("Slurm took the node")).toString())
                .isEqualTo("{\"Error\":\"Slurm took the node\"}");
    }
}
