package dev.colocate.copilot;

import dev.colocate.api.GenericNode;
import dev.colocate.config.CopilotConfig;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.WatcherException;
import io.fabric8.kubernetes.client.informers.ExceptionHandler;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.operators.multi.processors.BroadcastProcessor;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;

/**
 * The copilot's view of Kubernetes: informers on Pods, Nodes and GenericNodes, and a stream of the node names their
 * events touch. Pods are indexed by node in memory, because field selectors (spec.nodeName) are not something every
 * API server honours for watches, and set-based selectors even less.
 */
@ApplicationScoped
public class ClusterView {

    static final String BY_NODE = "byNode";
    /** Pods indexed by whether they are a slurmd: the few that make a node shared, found without a pass over all. */
    static final String SLURMD = "slurmd";

    private final KubernetesClient client;
    private final CopilotConfig config;
    private final BroadcastProcessor<String> touched = BroadcastProcessor.create();
    private SharedIndexInformer<Pod> pods;
    private SharedIndexInformer<Node> nodes;
    private SharedIndexInformer<GenericNode> genericNodes;
    /** Uids of pods seen deleted, with when, so that their reservations end at once. */
    private final Map<String, java.time.Instant> deleted = new java.util.concurrent.ConcurrentHashMap<>();
    private volatile boolean synced;
    /**
     * Per node, a count of the pod events that touched it; a {@link BoundPods} is kept with the count it was read at
     * and used while no event has touched the node since. Filter reads one per candidate node, where it read every pod
     * of every candidate before (3,000 pods on 100 candidates: 3.9 ms a call).
     */
    private final Map<String, Long> podEvents = new java.util.concurrent.ConcurrentHashMap<>();
    private final Map<String, CachedBoundPods> boundPods = new java.util.concurrent.ConcurrentHashMap<>();

    private record CachedBoundPods(long events, BoundPods pods) {
    }

    @Inject
    public ClusterView(KubernetesClient client, CopilotConfig config) {
        this.client = client;
        this.config = config;
    }

    /** Starts the informers and waits until their caches hold the current state. */
    public void start() {
        pods = client.pods().inAnyNamespace().runnableInformer(0);
        pods.addIndexers(Map.of(BY_NODE, p -> p.getSpec() == null || p.getSpec().getNodeName() == null ? List.of()
                : List.of(p.getSpec().getNodeName()), SLURMD, p -> SharedNodes.isSlurmd(p) ? List.of(SLURMD)
                : List.of()));
        // first of the pod handlers: a sync that an event starts reads the node's pods anew
        pods.addEventHandler(new ResourceEventHandler<>() {
            @Override
            public void onAdd(Pod obj) {
                counted(obj);
            }

            @Override
            public void onUpdate(Pod oldObj, Pod newObj) {
                counted(oldObj);
                counted(newObj);
            }

            @Override
            public void onDelete(Pod obj, boolean deletedFinalStateUnknown) {
                counted(obj);
            }
        });
        pods.addEventHandler(handler(p -> p.getSpec() == null ? null : p.getSpec().getNodeName()));
        pods.addEventHandler(new ResourceEventHandler<>() {
            @Override
            public void onAdd(Pod obj) {
            }

            @Override
            public void onUpdate(Pod oldObj, Pod newObj) {
            }

            @Override
            public void onDelete(Pod obj, boolean deletedFinalStateUnknown) {
                java.time.Instant now = java.time.Instant.now();
                deleted.values().removeIf(t -> t.isBefore(now.minus(DELETED_MEMORY)));
                deleted.put(obj.getMetadata().getUid(), now);
            }
        });
        nodes = client.nodes().runnableInformer(0);
        nodes.addEventHandler(handler(n -> n.getMetadata().getName()));
        genericNodes = client.resources(GenericNode.class).runnableInformer(0);
        genericNodes.addEventHandler(handler(g -> g.getMetadata().getName()));
        for (SharedIndexInformer<?> i : new SharedIndexInformer<?>[] {pods, nodes, genericNodes}) {
            // the first list is retried too, with fabric8's backoff (by default it is not): an API server slow or down
            // while the copilot starts leaves it live and not ready, instead of exiting into a restart loop
            i.exceptionHandler((started, e) -> started ? !(e instanceof WatcherException)
                    : !ExceptionHandler.isDeserializationException(e));
        }
        // the three lists run side by side: the start waits for the longest, not for their sum
        java.util.concurrent.CompletableFuture.allOf(pods.start().toCompletableFuture(),
                nodes.start().toCompletableFuture(), genericNodes.start().toCompletableFuture()).join();
        synced = true;
    }

    public void stop() {
        synced = false;
        boundPods.clear();
        for (SharedIndexInformer<?> i : new SharedIndexInformer<?>[] {pods, nodes, genericNodes}) {
            if (i != null) {
                i.close();
            }
        }
    }

    private <T extends HasMetadata> ResourceEventHandler<T> handler(Function<T, String> nodeOf) {
        return new ResourceEventHandler<>() {
            @Override
            public void onAdd(T obj) {
                emit(nodeOf.apply(obj));
            }

            @Override
            public void onUpdate(T oldObj, T newObj) {
                String before = nodeOf.apply(oldObj);
                String after = nodeOf.apply(newObj);
                emit(after);
                if (!Objects.equals(before, after)) {
                    emit(before);
                }
            }

            @Override
            public void onDelete(T obj, boolean deletedFinalStateUnknown) {
                emit(nodeOf.apply(obj));
            }
        };
    }

    private void emit(String node) {
        if (node != null) {
            touched.onNext(node);
        }
    }

    /** What the pods bound to the node hold, read anew only after a pod event touched the node. */
    public BoundPods boundPods(String nodeName) {
        long events = podEvents.getOrDefault(nodeName, 0L);
        CachedBoundPods cached = boundPods.get(nodeName);
        if (cached != null && cached.events() == events) {
            return cached.pods();
        }
        // read after the count: an event that lands meanwhile makes this one stale at once, never the reverse
        BoundPods read = BoundPods.of(nodeName, podsOn(nodeName));
        boundPods.put(nodeName, new CachedBoundPods(events, read));
        return read;
    }

    /** Counts an event on the pod's node; the informer's cache already holds the change. */
    private void counted(Pod pod) {
        String node = pod.getSpec() == null ? null : pod.getSpec().getNodeName();
        if (node != null) {
            podEvents.merge(node, 1L, Long::sum);
        }
    }

    /** Longer than any reservation lives. */
    private static final java.time.Duration DELETED_MEMORY = java.time.Duration.ofMinutes(30);

    /** Whether the pod of this uid was seen deleted. */
    public boolean podGone(String uid) {
        return uid != null && deleted.containsKey(uid);
    }

    /** Names of the nodes that informer events touch, as they happen. */
    public Multi<String> touchedNodes() {
        return touched;
    }

    public Node node(String name) {
        return nodes.getIndexer().getByKey(name);
    }

    public List<Node> nodes() {
        return nodes.getIndexer().list();
    }

    public List<Pod> pods() {
        return pods.getIndexer().list();
    }

    public List<Pod> podsOn(String nodeName) {
        return pods.getIndexer().byIndex(BY_NODE, nodeName);
    }

    public GenericNode genericNode(String name) {
        return genericNodes.getIndexer().getByKey(name);
    }

    public Collection<GenericNode> genericNodes() {
        return genericNodes.getIndexer().list();
    }

    /** Whether the informers run and their caches hold the API server's state (only on the leading copilot). */
    public boolean started() {
        return synced;
    }

    /** The nodes shared with Slurm right now. */
    public Map<String, SharedNode> sharedNodes() {
        return SharedNodes.resolve(nodes(), pods.getIndexer().byIndex(SLURMD, SLURMD), config.defaultClusterName());
    }
}
