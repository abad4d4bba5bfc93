package dev.colocate.testing;

import static org.awaitility.Awaitility.await;

import dev.colocate.testing.Charts.Rendered;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * helm/colocate's second kube-scheduler, the real one of the {@link KubeHarness}, run as its Deployment's pod would run
 * it, as a process of this host (there is no container runtime): the container's command with the chart's rendered
 * KubeSchedulerConfiguration (the ConfigMap's own bytes), in-cluster credentials of the chart's ServiceAccount
 * colocate-scheduler, and cluster DNS for the one name the configuration uses, the copilot's Service.
 *
 * <p>What differs from the pod, because it shares the host's network and file system: the configuration and the
 * scratch directory are host paths given to the same flags; {@code --secure-port} moves its health port off the
 * default scheduler's; in a private mount namespace, /etc/hosts names the Service's ClusterIP (as cluster DNS would
 * answer) and /run/secrets/kubernetes.io/serviceaccount holds its token and CA, as the kubelet projects them.
 */
public final class ChartScheduler implements AutoCloseable {

    static final String NAME = "colocate-scheduler";
    static final String NAMESPACE = ChartInstall.RELEASE_NAMESPACE;
    private static final String SERVICE_ACCOUNT_DIR = "/run/secrets/kubernetes.io/serviceaccount";
    /** Mounts what the pod would have and becomes its command: $1 hosts file, $2 token directory, then the command. */
    private static final String POD_MOUNTS = """
            set -e
            hosts=$1; secrets=$2; shift 2
            mount --bind "$hosts" /etc/hosts
            mount -t tmpfs -o mode=0755 pod-run /run
            mkdir -p %s
            mount --bind "$secrets" %s
            exec "$@"
            """.formatted(SERVICE_ACCOUNT_DIR, SERVICE_ACCOUNT_DIR);

    private final Process process;
    private final Path log;

    private ChartScheduler(Process process, Path log) {
        this.process = process;
        this.log = log;
    }

    /**
     * Starts the scheduler of {@code chart} in {@code dir} (its log is {@code dir}/kube-scheduler.log), its extender
     * reached at {@code serviceIp}, the copilot Service's ClusterIP; returns once it leads (its Lease is held), that
     * is, schedules. Its ServiceAccount token is valid for {@code tokenValidity}.
     */
    public static ChartScheduler start(KubeHarness kube, List<Rendered> chart, String serviceIp, Path dir,
            int securePort, Duration tokenValidity) {
        try {
            Path config = dir.resolve("config");
            Path secrets = dir.resolve("serviceaccount");
            Path scratch = dir.resolve("tmp");
            for (Path d : List.of(config, secrets, scratch)) {
                Files.createDirectories(d);
            }
            ConfigMap configMap = Charts.get(chart, "ConfigMap", NAME + "-config").as(ConfigMap.class);
            Files.writeString(config.resolve("config.yaml"), configMap.getData().get("config.yaml"));
            Files.writeString(secrets.resolve("token"), kube.token(NAMESPACE, NAME, tokenValidity));
            Files.copy(kube.caFile(), secrets.resolve("ca.crt"), StandardCopyOption.REPLACE_EXISTING);
            Files.writeString(secrets.resolve("namespace"), NAMESPACE);
            Path hosts = dir.resolve("hosts");
            Files.writeString(hosts, "127.0.0.1 localhost\n" + serviceIp + " colocate." + NAMESPACE + ".svc colocate."
                    + NAMESPACE + ".svc.cluster.local\n");

            List<String> command = new ArrayList<>(List.of("unshare", "--mount", "--propagation", "private", "sh",
                    "-c", POD_MOUNTS, "pod-mounts", hosts.toString(), secrets.toString()));
            command.addAll(podCommand(kube, chart, config, scratch));
            command.add("--secure-port=" + securePort);
            command.add("--bind-address=127.0.0.1");
            Path log = dir.resolve("kube-scheduler.log");
            ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
            builder.environment().remove("KUBECONFIG");
            // what the kubelet gives every pod: the API server's in-cluster address
            builder.environment().put("KUBERNETES_SERVICE_HOST", "127.0.0.1");
            builder.environment().put("KUBERNETES_SERVICE_PORT", String.valueOf(kube.apiPort()));
            Instant started = Instant.now();
            ChartScheduler scheduler = new ChartScheduler(builder.start(), log);
            scheduler.awaitLeading(kube, started);
            return scheduler;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The Deployment's container command, with the binary of the harness and host paths for its two volumes. */
    private static List<String> podCommand(KubeHarness kube, List<Rendered> chart, Path config, Path scratch) {
        Deployment deployment = Charts.get(chart, "Deployment", NAME).as(Deployment.class);
        Container container = deployment.getSpec().getTemplate().getSpec().getContainers().get(0);
        List<String> command = new ArrayList<>();
        command.add(kube.bin(container.getCommand().get(0)).toString());
        for (String arg : container.getCommand().subList(1, container.getCommand().size())) {
            command.add(arg.replace("--config=/etc/colocate-scheduler/", "--config=" + config + "/")
                    .replace("--cert-dir=/tmp", "--cert-dir=" + scratch));
        }
        if (command.stream().anyMatch(a -> a.contains("=/etc/") || a.equals("--cert-dir=/tmp"))) {
            throw new IllegalStateException("the chart's scheduler command has a path this stand-in does not map: "
                    + container.getCommand());
        }
        return command;
    }

    /** Waits until the Lease is held and renewed since {@code since}: a Lease a scheduler of an earlier run held is not. */
    private void awaitLeading(KubeHarness kube, Instant since) {
        try (KubernetesClient admin = kube.admin()) {
            await("colocate-scheduler to lead (its log: " + log + ")").atMost(Duration.ofSeconds(60))
                    .pollInterval(Duration.ofMillis(250)).until(() -> {
                        if (!process.isAlive()) {
                            throw new IllegalStateException("kube-scheduler exited with " + process.exitValue()
                                    + "; its log: " + log);
                        }
                        Lease lease = admin.leases().inNamespace(NAMESPACE).withName(NAME).get();
                        return lease != null && lease.getSpec().getHolderIdentity() != null
                                && lease.getSpec().getRenewTime() != null
                                && !lease.getSpec().getRenewTime().toInstant()
                                        .isBefore(since.truncatedTo(ChronoUnit.SECONDS));
                    });
        }
    }

    public Path log() {
        return log;
    }

    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
