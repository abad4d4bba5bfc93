package dev.colocate.copilot;

import dev.colocate.api.Labels;
import dev.colocate.slurm.Hostlist;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.Collection;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/** Which Kubernetes nodes are shared with Slurm, and with which Slurm node. */
public final class SharedNodes {

    private SharedNodes() {
    }

    /** Whether the pod is the slurmd of a SlurmCluster: its CPUs and memory are Slurm's, not Kubernetes'. */
    public static boolean isSlurmd(Pod pod) {
        Map<String, String> labels = pod.getMetadata().getLabels();
        return labels != null && Labels.COMPONENT_SLURMD.equals(labels.get(Labels.COMPONENT));
    }

    /**
     * Every shared node, keyed by Kubernetes node name: nodes that run a live slurmd pod (alias from the pod's
     * {@code colocate.dev/slurm-node} label, or its name; a SlurmCluster's when the operator made the pod), and nodes
     * labelled {@code colocate.dev/slurm-node} for an external Slurm. Only nodes that exist count; a label that is not
     * a Slurm node name is ignored.
     */
    public static Map<String, SharedNode> resolve(Collection<Node> nodes, Collection<Pod> pods,
            String defaultCluster) {
        Map<String, Node> byName = new TreeMap<>();
        nodes.forEach(n -> byName.put(n.getMetadata().getName(), n));
        Map<String, SharedNode> shared = new TreeMap<>();
        for (Node node : byName.values()) {
            labelled(node, defaultCluster).ifPresent(s -> shared.put(s.nodeName(), s));
        }
        for (Pod pod : pods) {
            String nodeName = pod.getSpec() == null ? null : pod.getSpec().getNodeName();
            if (!isSlurmd(pod) || nodeName == null || !byName.containsKey(nodeName) || Ledger.isTerminal(pod)) {
                continue;
            }
            Map<String, String> labels = pod.getMetadata().getLabels();
            String alias = labels.getOrDefault(Labels.SLURM_NODE, pod.getMetadata().getName());
            String cluster = labels.getOrDefault(Labels.CLUSTER, defaultCluster);
            // the operator's slurmd pods belong to their SlurmCluster's Slurm; others to the configured one
            boolean operatorMade = Labels.MANAGER.equals(labels.get(Labels.MANAGED_BY))
                    && labels.containsKey(Labels.CLUSTER);
            String namespace = operatorMade ? pod.getMetadata().getNamespace() : null;
            if (Hostlist.isNodeName(alias)) {
                shared.put(nodeName, new SharedNode(nodeName, alias, cluster, namespace));
            }
        }
        return shared;
    }

    private static Optional<SharedNode> labelled(Node node, String defaultCluster) {
        Map<String, String> labels = node.getMetadata().getLabels();
        if (labels == null || !Hostlist.isNodeName(labels.get(Labels.SLURM_NODE))) {
            return Optional.empty();
        }
        return Optional.of(new SharedNode(node.getMetadata().getName(), labels.get(Labels.SLURM_NODE),
                labels.getOrDefault(Labels.SLURM_CLUSTER, defaultCluster)));
    }
}
