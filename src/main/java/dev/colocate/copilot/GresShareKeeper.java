package dev.colocate.copilot;

import dev.colocate.events.EventRecorder;
import dev.colocate.api.GenericNode;
import dev.colocate.config.SchedulerConfig;
import dev.colocate.copilot.ShareKeeper.ShareRefused.Kind;
import dev.colocate.scheduler.Fit;
import dev.colocate.slurm.SlurmControl;
import dev.colocate.slurm.SlurmNode;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.jboss.logging.Logger;

/**
 * GRES mode (ACK-compatible): Slurm learns Kubernetes' share from the k8scpu/k8smemory counts, {@code floor(C - K)}.
 * On stock Slurm a count changed under running jobs drains the node INVALID_REG at its next registration (DESIGN §4),
 * which {@link RegistrationRecovery} repairs; kept for Slurm builds whose registration keeps runtime counts.
 */
public class GresShareKeeper implements ShareKeeper {

    private static final Logger LOG = Logger.getLogger(GresShareKeeper.class);
    /** The longest one node's Slurm steps may take, Slurm timeouts included. */
    private static final Duration SYNC_TIMEOUT = Duration.ofMinutes(2);

    private final SlurmControl slurm;
    private final RegistrationRepair repair;
    private final EventRecorder events;
    private final SlurmState state;
    private final SchedulerConfig scheduler;

    public GresShareKeeper(SlurmControl slurm, RegistrationRepair repair, EventRecorder events, SlurmState state,
            SchedulerConfig scheduler) {
        this.slurm = slurm;
        this.repair = repair;
        this.events = events;
        this.state = state;
        this.scheduler = scheduler;
    }

    @Override
    public String mode() {
        return "gres";
    }

    @Override
    public Holdings ownHoldings(SharedNode shared) {
        return Holdings.NONE;
    }

    @Override
    public ShareReport sync(SharedNode shared, GenericNode gn, NodeBooks books, boolean forced) {
        String alias = shared.alias();
        NodeLedger ledger = books.ledger();
        SlurmShare current = books.current();
        SlurmNode slurmNode = books.slurmNode();
        String problem = books.problem();
        // a node Slurm drained for a count change is repaired first; its share is written once it is back
        RegistrationRecovery.Step recovery = problem != null ? new RegistrationRecovery.None()
                : RegistrationRecovery.next(slurmNode, current, ledger.share(), repair.written(alias),
                        slurmNode != null && slurmNode.is("INVALID_REG") ? repair.tried(alias, current) : Set.of());
        boolean recovering = !(recovery instanceof RegistrationRecovery.None);
        boolean mustWrite = problem == null && !recovering && (forced || !ledger.share().equals(current));
        String drained = slurmNode == null || !slurmNode.is("DRAIN") ? null
                : slurmNode.reason() + (slurmNode.is("INVALID_REG") ? " (INVALID_REG)" : "")
                        + (recovering ? "; " + recovery.describe() : "");
        SlurmShare counts = current;
        String slurmProblem = problem;
        boolean changed = false;
        try {
            if (recovering) {
                counts = recover(gn, alias, recovery, current, drained);
            } else if (mustWrite) {
                SlurmShare target = ledger.share();
                slurm.setKubernetesShare(alias, target.cpuCores(), target.memoryMb()).await().atMost(SYNC_TIMEOUT);
                repair.written(alias, target);
                state.update(v -> v.withShare(alias, target));
                counts = target;
                changed = true;
            }
        } catch (RuntimeException e) {
            events.record(gn, EventRecorder.Reason.ShareWriteFailed,
                    "k8scpu/k8smemory of Slurm node " + alias + " not written: " + e.getMessage());
            slurmProblem = e.getMessage();
        }
        boolean inLine = slurmProblem == null && counts != null && counts.equals(ledger.share()) && drained == null;
        String reason = inLine ? "ShareWritten" : slurmProblem != null ? "SlurmUnreachable"
                : drained != null ? "SlurmNodeDrained" : "ShareNotWritten";
        String message = inLine ? "Slurm's k8scpu/k8smemory counts match what Kubernetes leaves free"
                : slurmProblem != null ? slurmProblem
                : drained != null ? "Slurm drained the node: " + drained
                : "Slurm's counts are not yet what Kubernetes leaves free";
        return new ShareReport(inLine, reason, message, slurmProblem, drained, List.of(), counts, null, changed);
    }

    private SlurmShare recover(GenericNode gn, String alias, RegistrationRecovery.Step step, SlurmShare current,
            String drained) {
        if (step instanceof RegistrationRecovery.RestoreRegistered) {
            events.record(gn, EventRecorder.Reason.InvalidRegistration, "Slurm drained node " + alias
                    + " (" + drained + ")" + (repair.canAskToRegister() ? ""
                            : "; set colocate.copilot.slurmd-reregister-command, or restart its slurmd, to finish"));
        }
        SlurmShare share = repair.apply(alias, step, current).await().atMost(SYNC_TIMEOUT);
        state.update(v -> v.withShare(alias, share));
        if (step instanceof RegistrationRecovery.Resume) {
            events.record(gn, EventRecorder.Reason.SlurmNodeResumed,
                    "Slurm node " + alias + " resumed; its jobs kept running");
        }
        return share;
    }

    /**
     * Lowers the count to what is left once the pod is in, then re-reads what Slurm's jobs hold: a job that started
     * since the last poll wins, and the count is restored.
     */
    @Override
    public Reserve reserve(SharedNode shared, NodeBooks books, Resources request) {
        String alias = shared.alias();
        NodeLedger ledger = books.ledger();
        SlurmShare reserved = SlurmShare.leftOver(ledger.capacity(), ledger.kubernetes().plus(request));
        SlurmShare without = ledger.share();
        try {
            slurm.setKubernetesShare(alias, reserved.cpuCores(), reserved.memoryMb())
                    .await().atMost(scheduler.slurmTimeout());
        } catch (RuntimeException e) {
            // the write may still land: a lower share only costs Slurm until the next sync raises it again
            throw new ShareRefused(Kind.UNREACHABLE, "Slurm node " + alias + " could not be reserved: "
                    + e.getMessage());
        }
        NodeLedger fresh;
        try {
            SlurmNode now = slurm.node(alias).await().atMost(scheduler.slurmTimeout());
            fresh = Ledger.compute(ledger.capacity(), ledger.kubernetes(), Ledger.slurm(now, Holdings.NONE));
        } catch (RuntimeException e) {
            restore(alias, without);
            throw new ShareRefused(Kind.UNREACHABLE, "Slurm node " + alias + " could not be read after the reserve: "
                    + e.getMessage());
        }
        List<String> lost = Fit.refusals(fresh, request);
        if (!lost.isEmpty()) {
            restore(alias, SlurmShare.leftOver(fresh.capacity(), fresh.kubernetes()));
            throw new ShareRefused(Kind.RACE, "Slurm took " + shared.nodeName() + " meanwhile: "
                    + String.join("; ", lost));
        }
        return () -> restore(alias, without);
    }

    private void restore(String alias, SlurmShare share) {
        try {
            slurm.setKubernetesShare(alias, share.cpuCores(), share.memoryMb())
                    .await().atMost(scheduler.slurmTimeout());
        } catch (RuntimeException e) {
            // the share stays lower than it could be (safe); the next sync writes it
            LOG.warnf("share of %s not restored after a refused bind (%s); the next sync writes it", alias,
                    e.getMessage());
        }
    }

    @Override
    public void release(String nodeName) {
        // the count of a node that is no longer shared is left as it is: nothing of Kubernetes' is there to hold
    }
}
