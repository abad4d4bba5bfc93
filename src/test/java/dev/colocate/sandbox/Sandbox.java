package dev.colocate.sandbox;

import static dev.colocate.testing.TestNodes.aNode;
import static dev.colocate.testing.TestPods.aPod;

import dev.colocate.api.GenericNode;
import dev.colocate.scheduler.PodOptIn;
import dev.colocate.testing.ColocateProcess;
import dev.colocate.testing.GenericNodes;
import dev.colocate.testing.StandaloneApiServer;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
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
 * colocate's sandbox: real Slurm on loopback (started by src/main/local/run.sh), fabric8's mock API server standing
 * in for Kubernetes, colocate itself from target/quarkus-app, and a stand-in for kube-scheduler. It replays the
 * walkthrough of DESIGN §1.3-1.4 and then stays up to be poked at; {@code --once} stops after the walkthrough.
 * {@code get genericnode [--server URL]} prints the GenericNodes of a running sandbox as kubectl would.
 */
public final class Sandbox {

    static final Path DIR = Path.of("target", "sandbox");
    static final Duration WAIT = Duration.ofSeconds(60);
    static final String CPU = "8";
    static final String MEMORY = "32Gi";

    private final PrintStream out = System.out;
    private final Map<String, String> env = System.getenv();
    private final int apiPort;
    private final int httpPort;

    private Sandbox(int apiPort, int httpPort) {
        this.apiPort = apiPort;
        this.httpPort = httpPort;
    }

    public static void main(String[] args) {
        quietLogging();
        List<String> arguments = List.of(args);
        int apiPort = Integer.parseInt(option(arguments, "--api-port", "8001"));
        try {
            if (arguments.size() >= 2 && arguments.get(0).equals("get") && arguments.get(1).startsWith("genericnode")) {
                getGenericNodes(option(arguments, "--server", "http://127.0.0.1:" + apiPort));
                System.exit(0);
            }
            new Sandbox(apiPort, Integer.parseInt(option(arguments, "--http-port", "8080")))
                    .run(arguments.contains("--once"));
            // the mock API server's and the clients' threads would keep the JVM up
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

    /** Library logs (the mock API server logs every request) go to target/sandbox/sandbox.log, not the terminal. */
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

    private static void getGenericNodes(String server) {
        try (KubernetesClient client = new KubernetesClientBuilder()
                .withConfig(new io.fabric8.kubernetes.client.ConfigBuilder().withMasterUrl(server).build()).build()) {
            System.out.print(GenericNodeTable.of(client.genericKubernetesResources("colocate.dev/v1alpha1",
                    "GenericNode").list().getItems()));
        } catch (KubernetesClientException e) {
            throw new IllegalStateException("no sandbox answers at " + server + " (is bash src/main/local/run.sh"
                    + " running?)", e);
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
        String restUrl = required("SLURM_REST_URL");
        Slurm slurm = new Slurm(required("SLURM_CONF"));
        try (StandaloneApiServer api = new StandaloneApiServer(apiPort)) {
            KubernetesClient client = api.client();
            seed(client);
            Map<String, String> config = Map.of(
                    "kubernetes.master", api.url(),
                    "colocate.slurm.rest-url", restUrl,
                    "colocate.slurm.jwt.key-file", required("SLURM_JWT_KEY"),
                    "colocate.slurm.scontrol.slurm-conf", required("SLURM_CONF"),
                    // slurmd re-registers now and then; the copilot needs this to repair an INVALID_REG drain
                    "colocate.copilot.slurmd-reregister-command",
                    "kill -HUP \"$(cat " + required("SLURM_DIR") + "/run/slurmd-{node}.pid)\"");
            try (ColocateProcess colocate = ColocateProcess.start(config, DIR.resolve("colocate.log"), httpPort)) {
                out.println("""

                        colocate sandbox
                          Slurm        %s: nodes %s, slurmrestd %s (JWT)
                          Kubernetes   %s  fabric8's mock API server, not a real cluster
                          colocate     %s  operator, copilot and extender (pid %d, log %s)
                          scheduler    a stand-in for kube-scheduler's colocate-scheduler profile: it sends every
                                       pod of schedulerName colocate-scheduler to colocate's filter, prioritize, bind
                        """.formatted(slurm.version(), String.join(" ", slurm.nodes()), restUrl, api.url(),
                        colocate.uri(), colocate.pid(), DIR.resolve("colocate.log")));
                colocate.awaitReady(WAIT);
                // colocate is ready before its first syncs end: the walkthrough starts once both nodes have books
                GenericNodes.awaitReady(client, WAIT, "node-a", "node-b");
                try (StandInScheduler scheduler = new StandInScheduler(client, colocate.uri(), out::println).start()) {
                    new Walkthrough(client, slurm, scheduler, out).run();
                    if (!once) {
                        stayUp(api, colocate);
                    }
                }
            }
        }
    }

    /** Two 8-CPU nodes shared with Slurm's node1 and node2, tainted, each with two DaemonSet pods already on it. */
    private static void seed(KubernetesClient client) {
        String[][] nodes = {{"node-a", "node1"}, {"node-b", "node2"}};
        for (String[] node : nodes) {
            client.nodes().resource(aNode(node[0]).sharedWith(node[1]).allocatable(CPU, MEMORY).tainted().obj())
                    .create();
            client.resource(daemonPod("kube-proxy-" + node[0], node[0], "100m", "128Mi")).create();
            client.resource(daemonPod("node-exporter-" + node[0], node[0], "135m", "217Mi")).create();
        }
    }

    private static Pod daemonPod(String name, String node, String cpu, String memory) {
        Pod pod = aPod(name).in("kube-system").on(node).phase("Running").requesting(cpu, memory).obj();
        pod.getSpec().setTolerations(List.of(new io.fabric8.kubernetes.api.model.TolerationBuilder()
                .withOperator("Exists").build()));
        return pod;
    }

    private void stayUp(StandaloneApiServer api, ColocateProcess colocate) {
        // 24.11 and 26.05 (SANDBOX_SLURM) run their commands in their root, through the wrapper env.sh names
        String chroot = env.getOrDefault("SLURM_CHROOT_CMD", "").isBlank() ? "" : "$SLURM_CHROOT_CMD ";
        out.println("""

                The sandbox stays up. Try, in another terminal:
                  . %s/env.sh     # SLURM_CONF for the Slurm commands
                  %ssqueue; %ssinfo -N -o '%%N %%C %%G'
                  %ssrun --cpus-per-task=2 --mem=2000 hostname%s
                  curl -s %s/q/health
                  curl -s %s/q/metrics | grep '^colocate_'
                  bash src/main/local/run.sh get genericnode     # the GenericNode table, from %s
                  curl -s %s/apis/colocate.dev/v1alpha1/genericnodes
                Ctrl-C stops colocate, the API server and Slurm.""".formatted(env.getOrDefault("SLURM_DIR",
                "/tmp/colocate-slurm"), chroot, chroot, chroot, chroot.isEmpty()
                        ? "     # job_submit.lua adds the k8scpu/k8smemory GRES" : "",
                colocate.uri(), colocate.uri(), api.url(), api.url()));
        CountDownLatch forever = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            colocate.close();
            api.close();
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
                io.fabric8.kubernetes.api.model.Toleration.class)));
        return pod;
    }

    static Deployment deployment(String name, int replicas, Pod template) {
        return new DeploymentBuilder().withNewMetadata().withName(name).withNamespace("default").endMetadata()
                .withNewSpec().withReplicas(replicas).withNewSelector().addToMatchLabels("app", name).endSelector()
                .withTemplate(new PodTemplateSpec(template.getMetadata(), optedIn(template).getSpec()))
                .endSpec().build();
    }

    static List<GenericKubernetesResource> genericNodes(KubernetesClient client) {
        return client.genericKubernetesResources("colocate.dev/v1alpha1", "GenericNode").list().getItems();
    }

    static GenericNode genericNode(KubernetesClient client, String name) {
        return client.resources(GenericNode.class).withName(name).get();
    }
}
