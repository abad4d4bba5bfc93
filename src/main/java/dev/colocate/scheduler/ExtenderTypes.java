package dev.colocate.scheduler;

import com.fasterxml.jackson.annotation.JsonFormat;
import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.fabric8.kubernetes.api.model.NodeList;
import io.fabric8.kubernetes.api.model.Pod;
import io.quarkus.runtime.annotations.RegisterForReflection;
import java.util.List;
import java.util.Map;

/**
 * The kube-scheduler extender protocol, {@code k8s.io/kube-scheduler/extender/v1}. Its Go structs carry no JSON tags,
 * so kube-scheduler writes the Go field names ({@code Pod}, {@code NodeNames}, ...); Go reads them case-insensitively,
 * and so do these records.
 */
public final class ExtenderTypes {

    private ExtenderTypes() {
    }

    /**
     * What filter and prioritize receive: the pod, and the candidate nodes as full objects ({@code nodeCacheCapable:
     * false}) or by name ({@code nodeCacheCapable: true}).
     */
    @RegisterForReflection
    @JsonIgnoreProperties(ignoreUnknown = true)
    @JsonFormat(with = JsonFormat.Feature.ACCEPT_CASE_INSENSITIVE_PROPERTIES)
    public record ExtenderArgs(@JsonProperty("Pod") Pod pod, @JsonProperty("Nodes") NodeList nodes,
            @JsonProperty("NodeNames") List<String> nodeNames) {

        /** The candidate node names, whichever form the scheduler sent them in. */
        public List<String> candidates() {
            if (nodeNames != null) {
                return nodeNames;
            }
            return nodes == null || nodes.getItems() == null ? List.of()
                    : nodes.getItems().stream().map(n -> n.getMetadata().getName()).toList();
        }

        /** Whether the scheduler sent full node objects rather than names. */
        public boolean sentNodes() {
            return nodeNames == null && nodes != null;
        }
    }

    /** What filter answers: the nodes that pass, in the form they came, and a reason per node that does not. */
    @RegisterForReflection
    @JsonInclude(JsonInclude.Include.NON_NULL)
    @JsonIgnoreProperties(ignoreUnknown = true)
    @JsonFormat(with = JsonFormat.Feature.ACCEPT_CASE_INSENSITIVE_PROPERTIES)
    public record ExtenderFilterResult(@JsonProperty("Nodes") NodeList nodes,
            @JsonProperty("NodeNames") List<String> nodeNames,
            @JsonProperty("FailedNodes") Map<String, String> failedNodes,
            @JsonProperty("FailedAndUnresolvableNodes") Map<String, String> failedAndUnresolvableNodes,
            @JsonProperty("Error") String error) {
    }

    /** One node's score in a prioritize answer (a HostPriorityList is a JSON array of these), 0 to 10. */
    @RegisterForReflection
    @JsonIgnoreProperties(ignoreUnknown = true)
    @JsonFormat(with = JsonFormat.Feature.ACCEPT_CASE_INSENSITIVE_PROPERTIES)
    public record HostPriority(@JsonProperty("Host") String host, @JsonProperty("Score") long score) {

        public static final long MAX_SCORE = 10;
    }

    /** What bind receives: the pod by name and UID, and the node the scheduler chose. */
    @RegisterForReflection
    @JsonIgnoreProperties(ignoreUnknown = true)
    @JsonFormat(with = JsonFormat.Feature.ACCEPT_CASE_INSENSITIVE_PROPERTIES)
    public record ExtenderBindingArgs(@JsonProperty("PodName") String podName,
            @JsonProperty("PodNamespace") String podNamespace, @JsonProperty("PodUID") String podUid,
            @JsonProperty("Node") String node) {
    }

    /** What bind answers: empty on success, the reason otherwise (the scheduler then retries the pod). */
    @RegisterForReflection
    @JsonInclude(JsonInclude.Include.NON_NULL)
    @JsonFormat(with = JsonFormat.Feature.ACCEPT_CASE_INSENSITIVE_PROPERTIES)
    public record ExtenderBindingResult(@JsonProperty("Error") String error) {
    }
}
