package dev.colocate.scheduler;

import dev.colocate.copilot.NodeLedger;
import dev.colocate.copilot.Resources;
import dev.colocate.scheduler.ExtenderTypes.ExtenderArgs;
import dev.colocate.scheduler.ExtenderTypes.ExtenderFilterResult;
import dev.colocate.scheduler.ExtenderTypes.HostPriority;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeList;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * The filter and prioritize verbs' decisions over the candidates, pure: what the copilot knows of each node comes in
 * as a lookup.
 */
public final class Filtering {

    /** What the copilot knows of one candidate node. */
    public sealed interface Candidate {
    }

    /** Not a shared node: it passes untouched. */
    public record NotShared() implements Candidate {
    }

    /** A shared node and its current books. */
    public record Shared(NodeLedger ledger) implements Candidate {
    }

    /** A shared node whose books cannot be trusted now, e.g. Slurm is unreachable: it fails closed. */
    public record Unknown(String reason) implements Candidate {
    }

    private Filtering() {
    }

    /**
     * The nodes that pass, in the form the scheduler sent them (objects or names), the shared nodes the pod does not
     * fit on with the amounts, and the shared nodes that cannot be judged as unresolvable.
     */
    public static ExtenderFilterResult filter(ExtenderArgs args, Resources request,
            Function<String, Candidate> lookup) {
        List<String> passing = new ArrayList<>();
        Map<String, String> failed = new LinkedHashMap<>();
        Map<String, String> unresolvable = new LinkedHashMap<>();
        for (String name : args.candidates()) {
            Candidate candidate = lookup.apply(name);
            if (candidate instanceof Shared shared) {
                List<String> refusals = Fit.refusals(shared.ledger(), request);
                if (refusals.isEmpty()) {
                    passing.add(name);
                } else {
                    failed.put(name, String.join("; ", refusals));
                }
            } else if (candidate instanceof Unknown unknown) {
                unresolvable.put(name, unknown.reason());
            } else {
                passing.add(name);
            }
        }
        if (args.sentNodes()) {
            Set<String> kept = new HashSet<>(passing);
            List<Node> keptNodes = args.nodes().getItems().stream()
                    .filter(n -> kept.contains(n.getMetadata().getName())).toList();
            NodeList nodes = new NodeList();
            nodes.setItems(keptNodes);
            return new ExtenderFilterResult(nodes, null, failed, unresolvable, null);
        }
        return new ExtenderFilterResult(null, List.copyOf(passing), failed, unresolvable, null);
    }

    /**
     * A score per candidate: on a shared node the whole CPUs the pod leaves Slurm ({@link Fit#priority}); a node that
     * is not shared costs Slurm nothing and scores the most; a node that cannot be judged scores 0.
     */
    public static List<HostPriority> prioritize(ExtenderArgs args, Resources request,
            Function<String, Candidate> lookup) {
        return args.candidates().stream().map(name -> new HostPriority(name, score(lookup.apply(name), request)))
                .toList();
    }

    private static long score(Candidate candidate, Resources request) {
        if (candidate instanceof Shared shared) {
            return Fit.priority(shared.ledger(), request);
        }
        return candidate instanceof Unknown ? 0 : HostPriority.MAX_SCORE;
    }
}
