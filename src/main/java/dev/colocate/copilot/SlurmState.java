package dev.colocate.copilot;

import jakarta.enterprise.context.ApplicationScoped;
import java.util.function.UnaryOperator;

/** Slurm as the copilot last saw it: the poll replaces it, and the share keepers amend it with what they just did. */
@ApplicationScoped
public class SlurmState {

    private volatile SlurmView view = SlurmView.UNKNOWN;
    /** When Slurm's jobs were last asked for, in epoch seconds; 0 before. */
    private volatile long jobsAskedAt;

    public long jobsAskedAt() {
        return jobsAskedAt;
    }

    public void jobsAskedAt(long epochSeconds) {
        this.jobsAskedAt = epochSeconds;
    }

    public SlurmView view() {
        return view;
    }

    public void view(SlurmView next) {
        this.view = next;
    }

    public synchronized void update(UnaryOperator<SlurmView> change) {
        view = change.apply(view);
    }
}
