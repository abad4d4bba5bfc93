package dev.colocate.scheduler;

import dev.colocate.api.GenericNode;
import dev.colocate.copilot.ClusterView;
import dev.colocate.copilot.NodeBooks;
import dev.colocate.copilot.NodeSync;
import dev.colocate.copilot.SharedNode;
import dev.colocate.scheduler.Filtering.Candidate;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.Map;
import java.util.function.Function;

/** What the extender knows of a candidate node, read from the copilot's caches without any I/O. */
@ApplicationScoped
public class Candidates {

    private final ClusterView view;
    private final NodeSync sync;

    @Inject
    public Candidates(ClusterView view, NodeSync sync) {
        this.view = view;
        this.sync = sync;
    }

    /**
     * A lookup for one extender call: the shared nodes are resolved once (a pass over every node and the slurmd pods),
     * not once per candidate.
     */
    public Function<String, Candidate> snapshot() {
        Map<String, SharedNode> sharedNodes = view.sharedNodes();
        return nodeName -> lookup(sharedNodes, nodeName);
    }

    private Candidate lookup(Map<String, SharedNode> sharedNodes, String nodeName) {
        SharedNode shared = sharedNodes.get(nodeName);
        if (shared == null) {
            // a name colocate has no Node for cannot be judged: fail closed, never pass it as a free node
            return known(nodeName) ? new Filtering.NotShared() : new Filtering.Unknown(unknown(nodeName));
        }
        GenericNode gn = view.genericNode(nodeName);
        if (gn == null) {
            return new Filtering.Unknown("shared node " + nodeName + " has no GenericNode yet");
        }
        NodeBooks books = books(shared, gn);
        return books.problem() != null ? new Filtering.Unknown("Slurm: " + books.problem())
                : new Filtering.Shared(books.ledger());
    }

    /** The node's books with the given GenericNode's reservations. */
    public NodeBooks books(SharedNode shared, GenericNode gn) {
        return sync.books(shared, gn);
    }

    /** Whether colocate's cache of the API server has a Node of that name. */
    public boolean known(String nodeName) {
        return view.node(nodeName) != null;
    }

    /** Why a node colocate has no Node for cannot be judged. */
    static String unknown(String nodeName) {
        return "node " + nodeName + " is not known to colocate (no such Node in its cache of the API server)";
    }

    public SharedNode shared(String nodeName) {
        return view.sharedNodes().get(nodeName);
    }
}
