package dev.colocate.sandbox;

import static dev.colocate.testing.TestNodes.aNode;
import static dev.colocate.testing.TestPods.aPod;

import dev.colocate.scheduler.PodOptIn;
import dev.colocate.testing.ChartScheduler;
import dev.colocate.testing.ChartedColocate;
import dev.colocate.testing.ColocateProcess;
import dev.colocate.testing.ExternalSlurm;
import dev.colocate.testing.GenericNodes;
import dev.colocate.testing.KubeHarness;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.Toleration;
import io.fabric8.kubernetes.api.model.TolerationBuilder;
import io.fabric8.kubernetes.api.model.apps.DaemonSetBuilder;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.function.BooleanSupplier;
import java.util.logging.FileHandler;
import java.util.logging.Level;
import java.util.logging.Logger;
import java.util.logging.SimpleFormatter;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionTimeoutException;

/**
 * colocate's sandbox: real Slurm and a real Kubernetes control plane on loopback (both started by
 * src/main/local/run.sh), colocate installed as helm/colocate installs it (CRDs, ServiceAccount, RBAC, Service) and
 * run from target/quarkus-app as that ServiceAccount, and the chart's own kube-scheduler with colocate as its extender.
 * It replays the walkthrough of DESIGN §1.3-1.4 and then stays up to be poked at; {@code --once} stops after it.
 */
public final class Sandbox {

    static final Path DIR = Path.of("target", "sandbox");
    static final Duration WAIT = Duration.ofSeconds(90);
    /** The sandbox stays up for days; nothing rotates the ServiceAccount tokens its processes got at start. */
    static final Duration TOKENS = Duration.ofDays(30);
    static final String CPU = "8";
    static final String MEMORY = "32Gi";
    /** The namespace whose SlurmClusters colocate serves here (none is made: the Slurm is external). */
    static final String SERVED = "slurm";

    private final PrintStream out = System.out;
    private final Map<String, String> env = System.getenv();
    private final int httpPort;

    private Sandbox(int httpPort) {
        this.httpPort = httpPort;
    }

    public static void main(String[] args) {
        quietLogging();
        List<String> arguments = List.of(args);
        try {
            new Sandbox(Integer.parseInt(option(arguments, "--http-port", "8080"))).run(arguments.contains("--once"));
            // the clients' threads would keep the JVM up
            System.exit(0);
        } catch (RuntimeException e) {
            Logger.getLogger(Sandbox.class.getName()).log(Level.SEVERE, "sandbox failed", e);
            System.err.println("sandbox: " + e.getMessage() + " (details in " + DIR.resolve("sandbox.log") + ")");
            System.exit(1);
        }
    }

    private static String option(List<String> arguments, String name, String fallback) {
        int at = arguments.indexOf(name);
        return at >= 0 && at + 1 < arguments.size() ? arguments.get(at + 1) : fallback;
    }

    /** Library logs go to target/sandbox/sandbox.log, not the terminal. */
    private static void quietLogging() {
        try {
            Files.createDirectories(DIR);
            Logger root = Logger.getLogger("");
            for (var handler : root.getHandlers()) {
                root.removeHandler(handler);
            }
            FileHandler file = new FileHandler(DIR.resolve("sandbox.log").toString(), true);
            file.setFormatter(new SimpleFormatter());
            root.addHandler(file);
            root.setLevel(Level.INFO);
        } catch (IOException e) {
            throw new IllegalStateException("cannot write " + DIR, e);
        }
    }

    private String required(String name) {
        String value = env.get(name);
        if (value == null || value.isBlank()) {
            throw new IllegalStateException(name + " is not set: start the sandbox with bash src/main/local/run.sh");
        }
        return value;
    }

    private void run(boolean once) {
        ExternalSlurm external = new ExternalSlurm(required("SLURM_REST_URL"), Path.of(required("SLURM_JWT_KEY")),
                Path.of(required("SLURM_CONF")));
        Slurm slurm = new Slurm(required("SLURM_CONF"));
        KubeHarness kube = KubeHarness.at(Path.of(required("KUBE_DIR")));
        ChartedColocate chart = ChartedColocate.install(kube, external, SERVED, List.of(
                shared("node-a", "node1"), shared("node-b", "node2")));
        try (KubernetesClient client = kube.admin()) {
            seed(client);
            Map<String, String> config = Map.of(
                    // slurmd re-registers now and then; the copilot needs this to repair an INVALID_REG drain
                    "colocate.copilot.slurmd-reregister-command",
                    "kill -HUP \"$(cat " + required("SLURM_DIR") + "/run/slurmd-{node}.pid)\"");
            try (ColocateProcess colocate = chart.start(DIR.resolve("colocate.log"), config, httpPort, TOKENS)) {
                String clusterIp = chart.expose(colocate, required("SANDBOX_ADDRESS"));
                out.println("""

                        colocate sandbox
                          Slurm        %s: nodes %s, slurmrestd %s (JWT)
                          Kubernetes   %s %s: etcd, kube-apiserver, kube-controller-manager,
                                       kube-scheduler, kube-proxy; kwok keeps node-a and node-b Ready
                          colocate     %s  operator, copilot and extender as the chart's ServiceAccount
                                       (pid %d, log %s); Service colocate.%s.svc = %s
                          scheduler    the chart's colocate-scheduler: kube-scheduler with the KubeSchedulerConfiguration
                                       helm/colocate renders, colocate as its extender (log %s)
                        """.formatted(slurm.version(), String.join(" ", slurm.nodes()), external.restUrl(),
                        client.getKubernetesVersion().getGitVersion(), kube.apiUrl(), colocate.uri(), colocate.pid(),
                        DIR.resolve("colocate.log"), ChartedColocate.RELEASE, clusterIp,
                        DIR.resolve("colocate-scheduler/kube-scheduler.log")));
                colocate.awaitReady(WAIT);
                // colocate is ready before its first syncs end: the walkthrough starts once both nodes have books
                GenericNodes.awaitReady(client, WAIT, "node-a", "node-b");
                try (ChartScheduler scheduler = ChartScheduler.start(kube, chart.chart(), clusterIp,
                        DIR.resolve("colocate-scheduler"), ColocateProcess.freePort(), TOKENS)) {
                    new Walkthrough(kube, client, slurm, out).run();
                    if (!once) {
                        stayUp(kube, colocate, scheduler);
                    }
                }
            }
        }
    }

    private static Node shared(String name, String slurmNode) {
        return aNode(name).sharedWith(slurmNode).allocatable(CPU, MEMORY).tainted().obj();
    }

    /**
     * Two DaemonSets, as every node runs some, whose pods hold 735m CPU and 1369Mi on each node: the controller-manager
     * makes their pods, the default scheduler places them, kwok runs them.
     */
    private static void seed(KubernetesClient client) {
        daemonSet(client, "kube-proxy", "100m", "128Mi");
        daemonSet(client, "log-agent", "635m", "1241Mi");
    }

    private static void daemonSet(KubernetesClient client, String name, String cpu, String memory) {
        Pod pod = aPod(name).labelled("app", name).requesting(cpu, memory).obj();
        pod.getSpec().setTolerations(List.of(new TolerationBuilder().withOperator("Exists").build()));
        client.resource(new DaemonSetBuilder().withNewMetadata().withName(name).withNamespace("kube-system")
                .endMetadata().withNewSpec().withNewSelector().addToMatchLabels("app", name).endSelector()
                .withTemplate(template(pod)).endSpec().build())
                .serverSideApply();
    }

    private void stayUp(KubeHarness kube, ColocateProcess colocate, ChartScheduler scheduler) {
        // 24.11 and 26.05 (SANDBOX_SLURM) run their commands in their root, through the wrapper env.sh names
        String chroot = env.getOrDefault("SLURM_CHROOT_CMD", "").isBlank() ? "" : "$SLURM_CHROOT_CMD ";
        out.println("""

                The sandbox stays up. Try, in another terminal:
                  . %s/env.sh; . %s/env.sh     # SLURM_CONF for Slurm's commands, KUBECONFIG for kubectl
                  %ssqueue; %ssinfo -N -o '%%N %%C %%G'
                  %ssrun --cpus-per-task=2 --mem=2000 hostname
                  kubectl get genericnode; kubectl get pods -A -o wide
                  kubectl scale deployment web --replicas=3      # the third pod waits: neither node has room
                  curl -s %s/q/health
                  curl -s %s/q/metrics | grep '^colocate_'
                Ctrl-C stops colocate, the scheduler, Kubernetes and Slurm.""".formatted(
                env.getOrDefault("SLURM_DIR", "/tmp/colocate-slurm"), required("KUBE_DIR"), chroot, chroot, chroot,
                colocate.uri(), colocate.uri()));
        CountDownLatch forever = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            scheduler.close();
            colocate.close();
        }));
        try {
            forever.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Waits for a condition the walkthrough needs before it prints the next step, with a readable failure. */
    static void awaitThat(String what, BooleanSupplier condition) {
        try {
            Awaitility.await(what).atMost(WAIT).pollInterval(Duration.ofMillis(200)).until(condition::getAsBoolean);
        } catch (ConditionTimeoutException e) {
            throw new IllegalStateException("gave up after " + WAIT.toSeconds() + " s waiting for " + what);
        }
    }

    /** The pod as a user opts it in (or the webhook does): colocate-scheduler and the shared-node toleration. */
    static Pod optedIn(Pod pod) {
        pod.getSpec().setSchedulerName(PodOptIn.SCHEDULER_NAME);
        pod.getSpec().setTolerations(List.of(Serialization.jsonMapper().convertValue(PodOptIn.toleration(),
                Toleration.class)));
        return pod;
    }

    /** A pod template of {@code pod}: its labels and spec. */
    static PodTemplateSpec template(Pod pod) {
        return new PodTemplateSpec(new ObjectMetaBuilder().withLabels(pod.getMetadata().getLabels()).build(),
                pod.getSpec());
    }

    static Deployment deployment(String name, int replicas, Pod template) {
        return new DeploymentBuilder().withNewMetadata().withName(name).withNamespace("default").endMetadata()
                .withNewSpec().withReplicas(replicas).withNewSelector().addToMatchLabels("app", name).endSelector()
                .withTemplate(template(optedIn(template)))
                .endSpec().build();
    }
}
