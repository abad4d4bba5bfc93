package dev.colocate.slurm.scontrol;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.ExecWatch;
import io.smallrye.mutiny.Uni;
import io.smallrye.mutiny.infrastructure.Infrastructure;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;

/**
 * Runs commands inside a slurmctld pod through the Kubernetes exec API, for a containerized Slurm. With a backup
 * controller there are two such pods: a command runs in the first that is ready, so that holds go on while the
 * backup serves and the primary's pod is down (Slurm's clients there reach whichever controller serves).
 */
public final class PodExecCommandRunner implements CommandRunner {

    private final KubernetesClient client;
    private final String namespace;
    private final List<String> pods;
    private final String container;

    /** @param pods the pods to run in, the first ready one taken, in this order */
    public PodExecCommandRunner(KubernetesClient client, String namespace, List<String> pods, String container) {
        if (pods.isEmpty()) {
            throw new IllegalArgumentException("no pod to run commands in");
        }
        this.client = client;
        this.namespace = namespace;
        this.pods = List.copyOf(pods);
        this.container = container;
    }

    public PodExecCommandRunner(KubernetesClient client, String namespace, String pod, String container) {
        this(client, namespace, List.of(pod), container);
    }

    @Override
    public Uni<CommandResult> run(List<String> argv) {
        return Uni.createFrom().item(() -> {
            String pod = pods.size() == 1 ? pods.get(0) : readyPod().orElse(null);
            if (pod == null) {
                return new CommandResult(-1, "", "none of the pods " + pods + " in " + namespace + " is ready");
            }
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            try (ExecWatch watch = client.pods().inNamespace(namespace).withName(pod).inContainer(container)
                    .writingOutput(out).writingError(err)
                    .exec(argv.toArray(String[]::new))) {
                Integer code = watch.exitCode().join();
                String stderr = err.toString(StandardCharsets.UTF_8);
                // no status from the API server: the command's outcome is unknown, which must not pass for success
                return new CommandResult(code == null ? -1 : code, out.toString(StandardCharsets.UTF_8),
                        code == null && stderr.isBlank() ? "exec ended without an exit status" : stderr);
            }
        }).runSubscriptionOn(Infrastructure.getDefaultWorkerPool());
    }

    /** The first of the pods that is running and ready. */
    Optional<String> readyPod() {
        return pods.stream().filter(p -> isReady(client.pods().inNamespace(namespace).withName(p).get()))
                .findFirst();
    }

    static boolean isReady(Pod pod) {
        return pod != null && pod.getMetadata().getDeletionTimestamp() == null && pod.getStatus() != null
                && "Running".equals(pod.getStatus().getPhase()) && pod.getStatus().getConditions() != null
                && pod.getStatus().getConditions().stream()
                        .anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
    }

    @Override
    public String where() {
        return "pod " + namespace + "/" + (pods.size() == 1 ? pods.get(0) : String.join(" or ", pods))
                + " container " + container;
    }
}
