package dev.colocate.kube;

import static dev.colocate.testing.TestNodes.aNode;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.colocate.testing.ChartedColocate;
import dev.colocate.testing.Commands;
import dev.colocate.testing.KubeHarness;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The control plane that src/test/kube/ builds and starts is a real cluster where colocate lives: nodes kept Ready,
 * controllers that run Deployments, a scheduler that places pods, kube-proxy routing Services, RBAC and Pod Security
 * enforced, and a harness that can be started twice and names the port (or the other kube-proxy) it cannot have.
 */
@Tag("kube")
class ControlPlaneIT {

    static final Duration WAIT = Duration.ofSeconds(60);
    static final String NS = "control-plane-it";
    static final String NODE = "cp-1";

    static KubeHarness kube;
    static KubernetesClient admin;

    @BeforeAll
    static void up() {
        kube = KubeHarness.ensure();
        admin = kube.admin();
        KubeHarness.namespace(admin, NS, Map.of());
        admin.nodes().resource(aNode(NODE).allocatable("8", "32000Mi").obj()).create();
    }

    @AfterAll
    static void down() {
        admin.namespaces().withName(NS).delete();
        admin.nodes().withName(NODE).delete();
        admin.close();
    }

    @Test
    void aNodeStaysReadyWithItsAllocatableAndRunsTheDeploymentKubectlScales() {
        await().atMost(WAIT).untilAsserted(() -> {
            Node node = admin.nodes().withName(NODE).get();
            assertThat(node.getStatus().getConditions()).anyMatch(c -> "Ready".equals(c.getType())
                    && "True".equals(c.getStatus()));
            assertThat(node.getStatus().getAllocatable()).containsEntry("cpu", new Quantity("8"));
        });

        kube.kubectl("-n", NS, "create", "deployment", "web", "--image=web:1");
        kube.kubectl("-n", NS, "scale", "deployment", "web", "--replicas=2");

        await().atMost(WAIT).untilAsserted(() -> assertThat(admin.pods().inNamespace(NS).withLabel("app", "web")
                .list().getItems()).hasSize(2).allMatch(p -> NODE.equals(p.getSpec().getNodeName())
                        && "Running".equals(p.getStatus().getPhase())));
        assertThat(kube.kubectl("-n", NS, "get", "deployment", "web")).contains("2/2");
    }

    @Test
    void aServiceAccountMayDoOnlyWhatARoleGrantsIt() {
        admin.serviceAccounts().inNamespace(NS).resource(new ServiceAccountBuilder().withNewMetadata()
                .withName("nobody").endMetadata().build()).create();

        try (KubernetesClient nobody = kube.as(NS, "nobody")) {
            assertThatThrownBy(() -> nobody.pods().inNamespace(NS).list())
                    .isInstanceOfSatisfying(KubernetesClientException.class, e -> assertThat(e.getCode())
                            .isEqualTo(403))
                    .hasMessageContaining("system:serviceaccount:" + NS + ":nobody")
                    .hasMessageContaining("cannot list resource \"pods\"");
        }
    }

    @Test
    void aRestrictedNamespaceRefusesAPrivilegedPod() {
        String ns = NS + "-restricted";
        KubeHarness.namespace(admin, ns, Map.of("pod-security.kubernetes.io/enforce", "restricted"));
        try {
            Pod privileged = new PodBuilder().withNewMetadata().withName("root").endMetadata().withNewSpec()
                    .addNewContainer().withName("c").withImage("web:1").withNewSecurityContext().withPrivileged(true)
                    .endSecurityContext().endContainer().endSpec().build();

            assertThatThrownBy(() -> admin.pods().inNamespace(ns).resource(privileged).create())
                    .isInstanceOfSatisfying(KubernetesClientException.class, e -> assertThat(e.getCode())
                            .isEqualTo(403))
                    .hasMessageContaining("violates PodSecurity \"restricted:latest\"")
                    .hasMessageContaining("privileged");
        } finally {
            admin.namespaces().withName(ns).delete();
        }
    }

    @Test
    void aServicesClusterIpReachesItsEndpointThroughKubeProxy() throws Exception {
        try (ServerSocket server = new ServerSocket(0)) {
            Thread answer = new Thread(() -> {
                try (Socket s = server.accept()) {
                    s.getOutputStream().write("hello from the endpoint\n".getBytes(StandardCharsets.UTF_8));
                } catch (IOException e) {
                    // the test fails on what it reads
                }
            });
            answer.start();
            admin.resource(new ServiceBuilder().withNewMetadata().withName("probe").withNamespace(NS).endMetadata()
                    .withNewSpec().addNewPort().withName("http").withPort(80).withProtocol("TCP").endPort().endSpec()
                    .build()).create();
            admin.resource(new EndpointSliceBuilder().withNewMetadata().withName("probe-host").withNamespace(NS)
                    .addToLabels("kubernetes.io/service-name", "probe").endMetadata().withAddressType("IPv4")
                    .addNewEndpoint().withAddresses(ChartedColocate.hostAddress()).withNewConditions().withReady(true)
                    .endConditions().endEndpoint().addNewPort().withName("http").withProtocol("TCP")
                    .withPort(server.getLocalPort()).endPort().build()).create();
            String clusterIp = admin.services().inNamespace(NS).withName("probe").get().getSpec().getClusterIP();

            // kube-proxy programs the Service once it sees the slice
            String greeting = await().atMost(WAIT).ignoreExceptions().until(() -> {
                try (Socket s = new Socket()) {
                    s.connect(new InetSocketAddress(clusterIp, 80), 1000);
                    s.setSoTimeout(2000);
                    return new String(s.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                }
            }, g -> !g.isEmpty());
            assertThat(greeting).isEqualTo("hello from the endpoint\n");
            answer.join(5000);
        }
    }

    @Test
    void aSecondStartLeavesTheRunningDaemonsAndAnotherClusterIsToldWhichPortIsTaken() {
        String up = Path.of("src", "test", "kube", "up.sh").toAbsolutePath().toString();

        assertThat(Commands.run(List.of("bash", up), Map.of(), WAIT)).contains("kube-apiserver already runs");

        // kube-proxy's nftables tables have fixed names: one kube-proxy per network namespace
        assertThatThrownBy(() -> Commands.run(List.of("bash", up), Map.of("KUBE_DIR", "/tmp/colocate-kube-taken"),
                WAIT)).hasMessageContaining("exited 5").hasMessageContaining("another kube-proxy runs on this host");
        assertThatThrownBy(() -> Commands.run(List.of("bash", up), Map.of("KUBE_DIR", "/tmp/colocate-kube-taken",
                "KUBE_PROXY", "0"), WAIT)).hasMessageContaining("exited 5")
                .hasMessageMatching("(?s).*port \\d+, which etcd needs, is taken by \"etcd\".*");
        Commands.run(List.of("bash", Path.of("src", "test", "kube", "down.sh").toAbsolutePath().toString(),
                "--purge"), Map.of("KUBE_DIR", "/tmp/colocate-kube-taken"), WAIT);
    }
}
