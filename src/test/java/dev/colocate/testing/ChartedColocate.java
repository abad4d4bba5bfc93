package dev.colocate.testing;

import static dev.colocate.testing.TestNodes.aNode;

import dev.colocate.api.GenericNode;
import dev.colocate.testing.Charts.Rendered;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * colocate as helm/colocate installs it for an external Slurm (a {@link SlurmHarness}), on the real API server of a
 * {@link KubeHarness}: the release namespace (Pod Security restricted), the chart's CRDs, ServiceAccount and RBAC, the
 * Slurm key's Secret, and the packaged app started with its Deployment's environment and the ServiceAccount's token.
 */
public final class ChartedColocate {

    public static final String RELEASE = ChartInstall.RELEASE_NAMESPACE;
    /** The EndpointSlice by which {@link #expose} points the chart's Service at the process. */
    static final String EXPOSED = "process";

    private final KubeHarness kube;
    private final ExternalSlurm slurm;
    private final List<Rendered> chart;
    private final String served;
    private final List<String> nodes;

    private ChartedColocate(KubeHarness kube, ExternalSlurm slurm, List<Rendered> chart, String served,
            List<String> nodes) {
        this.kube = kube;
        this.slurm = slurm;
        this.chart = chart;
        this.served = served;
        this.nodes = nodes;
    }

    /**
     * Installs what the chart would, serving the SlurmClusters of {@code served}, and registers Kubernetes nodes
     * {@code nodePrefix}1.. shared with the Slurm nodes node1.. (8 CPUs, 32000Mi each), kept Ready by kwok.
     */
    public static ChartedColocate install(KubeHarness kube, SlurmHarness slurm, String served, String nodePrefix,
            int nodes) {
        List<Node> shared = new ArrayList<>();
        for (int i = 1; i <= nodes; i++) {
            shared.add(aNode(nodePrefix + i).sharedWith("node" + i).allocatable("8", "32000Mi").obj());
        }
        return install(kube, ExternalSlurm.of(slurm), served, shared);
    }

    /** Installs what the chart would for {@code slurm}, serving the SlurmClusters of {@code served}, and {@code nodes}. */
    public static ChartedColocate install(KubeHarness kube, ExternalSlurm slurm, String served, List<Node> nodes) {
        try (KubernetesClient admin = kube.admin()) {
            // as the README asks of the release namespace
            KubeHarness.namespace(admin, RELEASE, Map.of("pod-security.kubernetes.io/enforce", "restricted"));
            KubeHarness.namespace(admin, served, Map.of());
            ChartInstall.crds(admin);
            List<Rendered> chart = Charts.render(Charts.COLOCATE, Map.of(
                    "app.externalSlurm.enabled", "true",
                    "app.externalSlurm.restUrl", slurm.restUrl(),
                    "app.externalSlurm.jwtKeySecret.name", "slurm-jwt",
                    "app.watchNamespaces[0]", served,
                    "app.scheduler.image", "kube-scheduler:v1.34.0"));
            ChartInstall.identity(admin, chart);
            admin.secrets().inNamespace(RELEASE).resource(new SecretBuilder().withNewMetadata()
                    .withName("slurm-jwt").endMetadata().addToData("jwt_hs256.key", Base64.getEncoder()
                            .encodeToString(Files.readAllBytes(slurm.jwtKey()))).build()).serverSideApply();
            nodes.forEach(n -> admin.nodes().resource(n).serverSideApply());
            return new ChartedColocate(kube, slurm, chart, served,
                    nodes.stream().map(n -> n.getMetadata().getName()).toList());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * colocate as a real {@code helm install} of {@code chart} (rendered with the same values) put it on the API
     * server, to {@link #start} it as that release's ServiceAccount; nothing here installs or removes anything.
     */
    public static ChartedColocate ofRelease(KubeHarness kube, List<Rendered> chart) {
        return new ChartedColocate(kube, null, chart, null, List.of());
    }

    /** What helm/colocate rendered for this install. */
    public List<Rendered> chart() {
        return chart;
    }

    /**
     * Removes what {@link #install} made, as {@code helm uninstall} would, but for the CRDs (Helm keeps them too): the
     * chart's identity and RBAC, its Service, the Slurm key's Secret; and what it made for the test: the served
     * namespace, the nodes and their GenericNodes. A real {@code helm install} of the chart can follow.
     */
    public void uninstall() {
        if (served == null) {
            throw new IllegalStateException("helm uninstall removes a release's objects; this one was not installed here");
        }
        try (KubernetesClient admin = kube.admin()) {
            admin.namespaces().withName(served).delete();
            nodes.forEach(n -> admin.nodes().withName(n).delete());
            admin.resources(GenericNode.class).delete();
            ChartInstall.removeIdentity(admin, chart);
            admin.services().inNamespace(RELEASE).withName("colocate").delete();
            admin.discovery().v1().endpointSlices().inNamespace(RELEASE).withName("colocate-" + EXPOSED).delete();
            admin.secrets().inNamespace(RELEASE).withName("slurm-jwt").delete();
        }
    }

    /**
     * Starts the packaged app as the chart's Deployment would run it, logging to {@code log}, with {@code config} on
     * top (test timings; nothing that changes what colocate may do).
     */
    public ColocateProcess start(Path log, Map<String, String> config) {
        return start(log, config, ColocateProcess.freePort(), Duration.ofHours(1));
    }

    /**
     * Starts the packaged app as {@link #start(Path, Map)} does, on HTTP {@code port}, with a ServiceAccount token
     * valid for {@code tokenValidity}.
     */
    public ColocateProcess start(Path log, Map<String, String> config, int port, Duration tokenValidity) {
        Map<String, String> env = new HashMap<>(ChartInstall.env(chart, "colocate"));
        // the ServiceAccount's token, as its pod would read it; nothing else of the admin's reaches colocate
        env.put("QUARKUS_KUBERNETES_CLIENT_TOKEN", kube.token(RELEASE, "colocate", tokenValidity));
        if (slurm != null) {
            // the image carries the external Slurm's slurm.conf for scontrol and salloc (Slurm 22.05 writes)
            env.put("COLOCATE_SLURM_SCONTROL_SLURM_CONF", slurm.slurmConf().toString());
        }
        Map<String, String> all = new HashMap<>(config);
        all.put("quarkus.kubernetes-client.api-server-url", kube.apiUrl());
        all.put("quarkus.kubernetes-client.ca-cert-file", kube.caFile().toString());
        return ColocateProcess.start(all, env, log, port);
    }

    /**
     * Makes the chart's Service {@code colocate} reach {@code colocate} as it would reach its pod: see
     * {@link #expose(String, String, int, String)}. Returns the Service's ClusterIP.
     */
    public String expose(ColocateProcess colocate, String address) {
        return expose("colocate", "http", colocate.uri().getPort(), address);
    }

    /**
     * Makes the chart's Service {@code service} reach a process of this host as it would reach its pod: the Service
     * as rendered (unless the release made it already), and an EndpointSlice of its own (the endpointslice controller
     * manages only the slices it labels, and finds no pod here: colocate runs as a process) naming {@code address}, an
     * address of this host that is not loopback (the API server refuses loopback endpoints), and the {@code port}
     * the process listens on for the Service's port {@code portName}. kube-proxy routes the Service's ClusterIP
     * there. Returns that ClusterIP.
     */
    public String expose(String service, String portName, int port, String address) {
        try (KubernetesClient admin = kube.admin()) {
            if (admin.services().inNamespace(RELEASE).withName(service).get() == null) {
                GenericKubernetesResource rendered = Charts.get(chart, "Service", service).object();
                rendered.getMetadata().setNamespace(RELEASE);
                admin.resource(rendered).forceConflicts().serverSideApply();
            }
            EndpointSlice slice = new EndpointSliceBuilder().withNewMetadata().withName(service + "-" + EXPOSED)
                    .withNamespace(RELEASE).addToLabels("kubernetes.io/service-name", service)
                    .addToLabels("endpointslice.kubernetes.io/managed-by", "colocate-tests").endMetadata()
                    .withAddressType("IPv4").addNewEndpoint().withAddresses(address).withNewConditions()
                    .withReady(true).endConditions().endEndpoint().addNewPort().withName(portName)
                    .withProtocol("TCP").withPort(port).endPort().build();
            admin.resource(slice).forceConflicts().serverSideApply();
            return admin.services().inNamespace(RELEASE).withName(service).get().getSpec().getClusterIP();
        }
    }

    /** This host's primary IPv4 address (the source of its default route): an endpoint address that routes. */
    public static String hostAddress() {
        String route = Commands.run(List.of("ip", "-4", "route", "get", "1.1.1.1"), Map.of(), Duration.ofSeconds(10));
        Matcher src = Pattern.compile(" src (\\d+\\.\\d+\\.\\d+\\.\\d+)")
                .matcher(route);
        if (!src.find()) {
            throw new IllegalStateException("this host has no IPv4 default route: " + route);
        }
        return src.group(1);
    }
}
