package dev.colocate.slurm;

import java.time.Instant;

/**
 * slurmctld's answer to a ping.
 *
 * @param startedAt when slurmctld started; a later value than last seen means it restarted and lost every runtime
 *                  GRES count, so the copilot must re-assert them
 */
public record ControllerPing(boolean up, String release, Instant startedAt) {
}
