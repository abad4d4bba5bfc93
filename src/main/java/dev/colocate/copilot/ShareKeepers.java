package dev.colocate.copilot;

import dev.colocate.events.EventRecorder;
import dev.colocate.config.CopilotConfig;
import dev.colocate.config.SchedulerConfig;
import dev.colocate.slurm.SlurmControl;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;

/** The {@link ShareKeeper} of the configured share mode ({@code colocate.copilot.share-mode}). */
@ApplicationScoped
public class ShareKeepers {

    @Produces
    @ApplicationScoped
    ShareKeeper keeper(CopilotConfig config, SlurmControl slurm, HoldBook book, EventRecorder events,
            SlurmState state, CopilotMeters meters, RegistrationRepair repair, SchedulerConfig scheduler) {
        return switch (config.shareMode()) {
            case HOLD -> new HoldShareKeeper(slurm, book, events, state, meters, config, scheduler);
            case GRES -> new GresShareKeeper(slurm, repair, events, state, scheduler);
        };
    }
}
