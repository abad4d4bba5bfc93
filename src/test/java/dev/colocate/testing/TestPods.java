package dev.colocate.testing;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/** Fluent test pods: {@code aPod("web-1").on("node-a").requesting("500m", "1Gi").obj()}. */
public final class TestPods {

    private final String name;
    private String namespace = "default";
    private String node;
    private String phase = "Running";
    private String schedulerName;
    private final Map<String, String> labels = new HashMap<>();
    private final List<Container> containers = new ArrayList<>();
    private final List<Container> initContainers = new ArrayList<>();
    private Map<String, Quantity> overhead;

    private TestPods(String name) {
        this.name = name;
    }

    public static TestPods aPod(String name) {
        return new TestPods(name);
    }

    public TestPods in(String ns) {
        this.namespace = ns;
        return this;
    }

    public TestPods on(String nodeName) {
        this.node = nodeName;
        return this;
    }

    public TestPods phase(String p) {
        this.phase = p;
        return this;
    }

    public TestPods scheduledBy(String scheduler) {
        this.schedulerName = scheduler;
        return this;
    }

    public TestPods labelled(String key, String value) {
        labels.put(key, value);
        return this;
    }

    /** One more app container with these requests (null for none). */
    public TestPods requesting(String cpu, String memory) {
        containers.add(container("c" + containers.size(), requests(cpu, memory), null));
        return this;
    }

    /** One more app container with limits only. */
    public TestPods limitedTo(String cpu, String memory) {
        containers.add(container("c" + containers.size(), null, requests(cpu, memory)));
        return this;
    }

    public TestPods initRequesting(String cpu, String memory) {
        initContainers.add(container("init" + initContainers.size(), requests(cpu, memory), null));
        return this;
    }

    /** A restartable init container, i.e. a sidecar. */
    public TestPods sidecarRequesting(String cpu, String memory) {
        Container c = container("sidecar" + initContainers.size(), requests(cpu, memory), null);
        c.setRestartPolicy("Always");
        initContainers.add(c);
        return this;
    }

    public TestPods overhead(String cpu, String memory) {
        this.overhead = requests(cpu, memory);
        return this;
    }

    private static Map<String, Quantity> requests(String cpu, String memory) {
        Map<String, Quantity> m = new HashMap<>();
        if (cpu != null) {
            m.put("cpu", new Quantity(cpu));
        }
        if (memory != null) {
            m.put("memory", new Quantity(memory));
        }
        return m;
    }

    private static Container container(String name, Map<String, Quantity> requests, Map<String, Quantity> limits) {
        return new ContainerBuilder().withName(name).withImage("busybox")
                .withNewResources().withRequests(requests).withLimits(limits).endResources().build();
    }

    public Pod obj() {
        if (containers.isEmpty()) {
            containers.add(container("c0", null, null));
        }
        return new PodBuilder()
                .withNewMetadata().withName(name).withNamespace(namespace).withUid(UUID.randomUUID().toString())
                .withLabels(labels).endMetadata()
                .withNewSpec().withNodeName(node).withSchedulerName(schedulerName).withContainers(containers)
                .withInitContainers(initContainers).withOverhead(overhead).endSpec()
                .withNewStatus().withPhase(phase).endStatus()
                .build();
    }
}
