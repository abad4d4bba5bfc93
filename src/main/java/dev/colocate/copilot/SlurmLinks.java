package dev.colocate.copilot;

import dev.colocate.config.CopilotConfig;
import dev.colocate.config.OperatorConfig;
import dev.colocate.config.SchedulerConfig;
import dev.colocate.config.SlurmConfig;
import dev.colocate.events.EventRecorder;
import dev.colocate.slurm.SlurmControl;
import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.jboss.logging.Logger;

/**
 * Every Slurm the copilot serves: the one configured in {@code colocate.slurm.*} (unless
 * {@code colocate.slurm.enabled=false}), and one per SlurmCluster whose slurmrestd and JWT Secret
 * {@link SlurmClusterDiscovery} found. A shared node is served by the Slurm its {@link SharedNode#slurmKey()} names.
 */
@ApplicationScoped
public class SlurmLinks {

    private static final Logger LOG = Logger.getLogger(SlurmLinks.class);

    /** The key of the Slurm configured in {@code colocate.slurm.*}. */
    public static final String CONFIGURED = "";

    @Inject
    SlurmConfig slurmConfig;

    @Inject
    CopilotConfig copilot;

    @Inject
    SchedulerConfig scheduler;

    @Inject
    OperatorConfig served;

    @Inject
    EventRecorder events;

    @Inject
    CopilotMeters meters;

    @Inject
    SlurmControl configuredSlurm;

    @Inject
    SlurmState configuredState;

    @Inject
    HoldBook configuredHolds;

    private volatile SlurmLink configured;
    private final Map<String, SlurmLink> discovered = new ConcurrentHashMap<>();
    /** Why a SlurmCluster has no link yet, by key, for the GenericNodes of its workers. */
    private final Map<String, String> unlinked = new ConcurrentHashMap<>();

    @PostConstruct
    void init() {
        if (slurmConfig.enabled()) {
            configured = link(CONFIGURED, copilot.defaultClusterName(), slurmConfig.restUrl().toString(),
                    configuredSlurm, configuredState, configuredHolds, () -> {
                    });
        }
    }

    /** A link with a new keeper of the configured share mode over the given Slurm. */
    SlurmLink link(String key, String clusterName, String endpoint, SlurmControl slurm, SlurmState state,
            HoldBook holds, Runnable close) {
        ShareKeeper keeper = switch (copilot.shareMode()) {
            case HOLD -> new HoldShareKeeper(slurm, holds, events, state, meters, copilot, scheduler);
            case GRES -> new GresShareKeeper(slurm, new RegistrationRepair(slurm, copilot, slurmConfig), events,
                    state, scheduler);
        };
        return new SlurmLink(key, clusterName, endpoint, slurm, state, holds, keeper, close);
    }

    /** The configured Slurm's link, if it is served. */
    public Optional<SlurmLink> configured() {
        return Optional.ofNullable(configured);
    }

    /** Every Slurm served now. */
    public List<SlurmLink> all() {
        List<SlurmLink> all = new ArrayList<>();
        configured().ifPresent(all::add);
        all.addAll(discovered.values());
        return all;
    }

    /** The Slurm that serves the node, if colocate has one for it. */
    public Optional<SlurmLink> of(SharedNode node) {
        return node.namespace() == null ? configured() : Optional.ofNullable(discovered.get(node.slurmKey()));
    }

    /** Slurm as the node's link last saw it; a view with the reason when there is no link. */
    public SlurmView view(SharedNode node) {
        return of(node).map(l -> l.state().view())
                .orElseGet(() -> new SlurmView(Map.of(), missing(node), Instant.EPOCH));
    }

    /** Why the node has no Slurm to talk to. */
    public String missing(SharedNode node) {
        if (node.namespace() == null) {
            return "no Slurm is configured for node " + node.nodeName() + " (colocate.slurm.enabled=false)";
        }
        if (!served.allNamespaces() && !served.namespaces().contains(node.namespace())) {
            return "SlurmCluster " + node.slurmKey() + ": namespace " + node.namespace() + " is not one colocate "
                    + "serves (colocate.operator.namespaces, the chart's app.watchNamespaces: "
                    + String.join(",", served.namespaces()) + ")";
        }
        return "SlurmCluster " + node.slurmKey() + ": " + unlinked.getOrDefault(node.slurmKey(),
                "not known to the copilot yet");
    }

    /** Serves a SlurmCluster's Slurm through {@code link}, replacing (and closing) the one it had. */
    public void put(SlurmLink link) {
        unlinked.remove(link.key());
        SlurmLink old = discovered.put(link.key(), link);
        LOG.infof("serving SlurmCluster %s through %s", link.key(), link.endpoint());
        if (old != null && old != link) {
            close(old);
        }
    }

    /** A SlurmCluster whose Slurm cannot be reached: why, for its nodes' status. Its link, if any, stays. */
    public void unlinked(String key, String why) {
        if (!why.equals(unlinked.put(key, why))) {
            LOG.warnf("SlurmCluster %s: %s", key, why);
        }
    }

    /** A SlurmCluster is gone: its link closes. */
    public void remove(String key) {
        unlinked.remove(key);
        SlurmLink old = discovered.remove(key);
        if (old != null) {
            LOG.infof("SlurmCluster %s is gone; no longer serving it", key);
            close(old);
        }
    }

    /** The link of a SlurmCluster, if it has one. */
    public Optional<SlurmLink> discovered(String key) {
        return Optional.ofNullable(discovered.get(key));
    }

    private static void close(SlurmLink link) {
        try {
            link.close().run();
        } catch (RuntimeException e) {
            LOG.debugf("closing the link to %s: %s", link.key(), e.getMessage());
        }
    }
}
