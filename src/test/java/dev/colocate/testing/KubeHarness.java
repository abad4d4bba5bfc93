package dev.colocate.testing;

import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.authentication.TokenRequest;
import io.fabric8.kubernetes.api.model.authentication.TokenRequestBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A real Kubernetes control plane on loopback: etcd, kube-apiserver (Node and RBAC authorization, Pod Security
 * admission), kube-controller-manager, the default kube-scheduler and kwok, built from the Go module proxy and started
 * by src/test/kube/up.sh. One runs per machine; every test class reuses it, and it stops when the JVM ends.
 *
 * <p>Nodes that carry {@link TestNodes#KWOK_ANNOTATION} are kept Ready by kwok, which also moves their bound pods to
 * Running; no container runs anywhere.
 */
public final class KubeHarness {

    static final Path SCRIPTS = Path.of("src", "test", "kube").toAbsolutePath();
    /** As up.sh's default; the binaries' build (about 12 minutes on 2 cores, once per machine) is in the first call. */
    static final Path DIR = Path.of(System.getenv().getOrDefault("KUBE_DIR", "/tmp/colocate-kube"));
    static final Duration UP = Duration.ofMinutes(40);

    private static KubeHarness running;

    private final Path dir;
    private final Map<String, String> exported;

    private KubeHarness(Path dir) {
        this.dir = dir;
        this.exported = EnvFile.read(dir.resolve("env.sh"), "KUBECONFIG", "KUBE_API_URL", "KUBE_BIN", "KUBE_CA");
    }

    /**
     * The control plane that up.sh already runs in {@code dir} (the sandbox's, started by src/main/local/run.sh),
     * without taking over its life: nothing here stops it.
     */
    public static KubeHarness at(Path dir) {
        return new KubeHarness(dir);
    }

    /** The running control plane, started (and its binaries built) on first need. */
    public static synchronized KubeHarness ensure() {
        if (running == null) {
            script(DIR, "up.sh");
            running = new KubeHarness(DIR);
            Runtime.getRuntime().addShutdownHook(new Thread(KubeHarness::shutdown, "kube-harness-down"));
        }
        return running;
    }

    /** Stops the control plane and wipes its state; its logs are kept under target/kube-logs. */
    static synchronized void shutdown() {
        try {
            script(DIR, "down.sh");
            keepLogs();
            script(DIR, "down.sh", "--purge");
        } catch (RuntimeException e) {
            System.err.println("kube harness: " + e.getMessage());
        }
    }

    /** Stops the named daemons and starts them again with the same data and certificates (an outage, or a restart). */
    public void restart(String... daemons) {
        script(dir, "down.sh", daemons);
        script(dir, "up.sh");
    }

    public String apiUrl() {
        return exported.get("KUBE_API_URL");
    }

    /** The cluster's CA certificate file: the API server's serving certificate and every client certificate. */
    public Path caFile() {
        return Path.of(exported.get("KUBE_CA"));
    }

    /** The cluster admin's kubeconfig (system:masters). */
    public Path adminKubeconfig() {
        return Path.of(exported.get("KUBECONFIG"));
    }

    /**
     * A client as the cluster admin, for tests to set the scene with; colocate itself never runs as admin. Its
     * configuration is built from nothing: fabric8's auto-configuration would take the system properties that a
     * {@code @QuarkusTest} with the mock API server set earlier in the same JVM (kubernetes.master) over the
     * kubeconfig.
     */
    public KubernetesClient admin() {
        Path pki = dir.resolve("pki");
        Config config = new ConfigBuilder(Config.empty()).withMasterUrl(apiUrl())
                .withCaCertFile(caFile().toString())
                .withClientCertFile(pki.resolve("admin.crt").toString())
                .withClientKeyFile(pki.resolve("admin.key").toString()).build();
        return new KubernetesClientBuilder().withConfig(config).build();
    }

    /**
     * A client that authenticates as the ServiceAccount {@code namespace/name}, with a token the API server issues for
     * it (TokenRequest), as a pod of that ServiceAccount would read it from its projected volume.
     */
    public KubernetesClient as(String namespace, String name) {
        return new KubernetesClientBuilder().withConfig(new ConfigBuilder(Config.empty()).withMasterUrl(apiUrl())
                .withCaCertFile(caFile().toString()).withOauthToken(token(namespace, name))
                .withNamespace(namespace).build()).build();
    }

    /** A token for the ServiceAccount {@code namespace/name}, valid for an hour. */
    public String token(String namespace, String name) {
        return token(namespace, name, Duration.ofHours(1));
    }

    /**
     * A token for the ServiceAccount {@code namespace/name}, valid for {@code validity}. Nothing here rotates it as a
     * kubelet rotates a projected token: a process that stays up for days (the sandbox's) asks for a long one.
     */
    public String token(String namespace, String name, Duration validity) {
        try (KubernetesClient admin = admin()) {
            TokenRequest request = new TokenRequestBuilder().withNewSpec()
                    .withExpirationSeconds(validity.toSeconds()).endSpec().build();
            return admin.serviceAccounts().inNamespace(namespace).withName(name).tokenRequest(request).getStatus()
                    .getToken();
        }
    }

    /**
     * Applies the namespace {@code name} with {@code labels} and waits for its {@code default} ServiceAccount: the
     * controller-manager makes that one shortly after the namespace, and until it exists the ServiceAccount admission
     * refuses every pod there (403, before any other check).
     */
    public static void namespace(KubernetesClient admin, String name, Map<String, String> labels) {
        admin.resource(new NamespaceBuilder().withNewMetadata().withName(name).withLabels(labels).endMetadata().build())
                .serverSideApply();
        await().atMost(Duration.ofMinutes(1))
                .until(() -> admin.serviceAccounts().inNamespace(name).withName("default").get() != null);
    }

    /** Runs kubectl as the admin; a non-zero exit is an IllegalStateException with its output. */
    public String kubectl(String... args) {
        List<String> command = new ArrayList<>(List.of(bin("kubectl").toString()));
        command.addAll(List.of(args));
        return Commands.run(command, Map.of("KUBECONFIG", adminKubeconfig().toString()), Duration.ofMinutes(2));
    }

    /** One of the control plane's binaries (kube-scheduler, kubectl, ...). */
    public Path bin(String name) {
        return Path.of(exported.get("KUBE_BIN"), name);
    }

    /** The API server's loopback port, as a pod's in-cluster configuration reads it from KUBERNETES_SERVICE_PORT. */
    public int apiPort() {
        return URI.create(apiUrl()).getPort();
    }

    private static void script(Path dir, String name, String... args) {
        List<String> command = new ArrayList<>(List.of("bash", SCRIPTS.resolve(name).toString()));
        command.addAll(List.of(args));
        Commands.run(command, Map.of("KUBE_DIR", dir.toString()), UP);
    }

    private static void keepLogs() {
        HarnessLogs.keep(DIR.resolve("log"), Path.of("target", "kube-logs"));
    }
}
