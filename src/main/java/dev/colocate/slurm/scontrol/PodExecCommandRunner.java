package dev.colocate.slurm.scontrol;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.ExecWatch;
import io.smallrye.mutiny.Uni;
import io.smallrye.mutiny.infrastructure.Infrastructure;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

/** Runs commands inside the slurmctld pod through the Kubernetes exec API, for a containerized Slurm. */
public final class PodExecCommandRunner implements CommandRunner {

    private final KubernetesClient client;
    private final String namespace;
    private final String pod;
    private final String container;

    public PodExecCommandRunner(KubernetesClient client, String namespace, String pod, String container) {
        this.client = client;
        this.namespace = namespace;
        this.pod = pod;
        this.container = container;
    }

    @Override
    public Uni<CommandResult> run(List<String> argv) {
        return Uni.createFrom().item(() -> {
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

    @Override
    public String where() {
        return "pod " + namespace + "/" + pod + " container " + container;
    }
}
