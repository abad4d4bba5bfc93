package dev.colocate.slurm.scontrol;

import static org.assertj.core.api.Assertions.assertThat;

import dev.colocate.slurm.HoldRequest;
import org.junit.jupiter.api.Test;

class HoldCommandsTest {

    static final HoldRequest HOLD = new HoldRequest("node1", "node-a", 2, 1500, true, "holds");

    @Test
    void sallocAsksForAnImmediateTopPriorityUnlimitedHoldNamedAfterTheKubernetesNode() {
        assertThat(HoldCommands.salloc("salloc", HOLD)).containsExactly("salloc", "--no-shell", "--immediate",
                "--priority=TOP", "--partition=holds", "--nodelist=node1", "--nodes=1", "--ntasks=1",
                "--cpus-per-task=2", "--mem=1500", "--time=UNLIMITED", "--job-name=colocate-hold",
                "--comment=colocate:node-a", "--gres=k8scpu:2,k8smemory:1500");
        assertThat(HoldCommands.salloc("salloc", new HoldRequest("node1", "node-a", 1, 0, false, "holds")))
                .as("--mem=0 would be the whole node").contains("--mem=1").noneMatch(a -> a.startsWith("--gres"));
    }

    @Test
    void readsSlurmsAnswers() {
        assertThat(HoldCommands.granted(new CommandResult(0, "", "salloc: Granted job allocation 55\n")))
                .contains(55L);
        CommandResult busy = new CommandResult(1, "",
                "salloc: error: Unable to allocate resources: Requested nodes are busy\n");
        assertThat(HoldCommands.granted(busy)).isEmpty();
        assertThat(HoldCommands.refusal(busy)).isEqualTo("Requested nodes are busy");
        assertThat(HoldCommands.refusal(new CommandResult(1, "", "salloc: error: invalid partition specified: holds\n"
                + "salloc: error: Job submit/allocate failed: Invalid partition name specified\n")))
                .isEqualTo("Job submit/allocate failed: Invalid partition name specified");
        assertThat(HoldCommands.submitted(new CommandResult(0, "58;colocate\n", ""))).contains(58L);
        assertThat(HoldCommands.submitted(new CommandResult(0, "58\n", ""))).contains(58L);
        assertThat(HoldCommands.sbatch("sbatch", HOLD)).contains("--wrap=exec sleep infinity", "--priority=TOP")
                .doesNotContain("--immediate");
    }
}
