package dev.colocate.copilot;

import dev.colocate.api.GenericNode;
import dev.colocate.config.CopilotConfig;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import java.util.List;

/**
 * The {@link ShareKeeper} the sync and the extender use: it hands each node to the keeper of the Slurm that serves it
 * ({@link SlurmLinks}), in the configured share mode ({@code colocate.copilot.share-mode}). A node whose Slurm colocate
 * cannot reach yet is reported, and refuses every bind.
 */
@ApplicationScoped
public class ShareKeepers {

    @Produces
    @ApplicationScoped
    ShareKeeper keeper(CopilotConfig config, SlurmLinks links) {
        return new Routing(links, config.shareMode().name().toLowerCase(java.util.Locale.ROOT));
    }

    static final class Routing implements ShareKeeper {

        static final String NO_SLURM = "NoSlurm";

        private final SlurmLinks links;
        private final String mode;

        Routing(SlurmLinks links, String mode) {
            this.links = links;
            this.mode = mode;
        }

        @Override
        public String mode() {
            return mode;
        }

        @Override
        public Holdings ownHoldings(SharedNode shared) {
            return links.of(shared).map(l -> l.keeper().ownHoldings(shared)).orElse(Holdings.NONE);
        }

        @Override
        public ShareReport sync(SharedNode shared, GenericNode genericNode, NodeBooks books, boolean forced) {
            // a node that moved to another Slurm leaves no holds behind in the one it left
            links.all().stream().filter(l -> !l.key().equals(shared.slurmKey()))
                    .filter(l -> !l.holds().on(shared.nodeName()).isEmpty())
                    .forEach(l -> l.keeper().release(shared.nodeName()));
            return links.of(shared).map(l -> l.keeper().sync(shared, genericNode, books, forced))
                    .orElseGet(() -> {
                        String why = links.missing(shared);
                        return new ShareReport(false, NO_SLURM, why, why, null, List.of(), null, null, false);
                    });
        }

        @Override
        public Reserve reserve(SharedNode shared, NodeBooks books, Resources request) {
            return links.of(shared).orElseThrow(() -> new ShareRefused(ShareRefused.Kind.UNREACHABLE,
                    links.missing(shared))).keeper().reserve(shared, books, request);
        }

        @Override
        public void release(String nodeName) {
            links.all().forEach(l -> l.keeper().release(nodeName));
        }
    }
}
