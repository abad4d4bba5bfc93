package dev.colocate.slurm;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class TresTest {

    @Test
    void readsCpusAndMemoryInMbWhateverTheUnit() {
        assertThat(Tres.cpus("cpu=2,mem=1500M,node=1,billing=2")).isEqualTo(2);
        assertThat(Tres.memoryMb("cpu=2,mem=1500M,node=1,billing=2")).isEqualTo(1500);
        assertThat(Tres.memoryMb("cpu=16,mem=62.50G,node=2")).isEqualTo(64000);
        assertThat(Tres.memoryMb("mem=512K")).isEqualTo(1);
        assertThat(Tres.cpus("")).isZero();
        assertThat(Tres.memoryMb(null)).isZero();
    }

    @Test
    void aJobIsAHoldOnlyByItsNameCommentPartitionAndState() {
        SlurmJob hold = new SlurmJob(7, "colocate-hold", "RUNNING", "None", "node1",
                "gres:k8scpu:2,gres:k8smemory:1500", 4294967293L, "holds", "colocate:node-a",
                "cpu=2,mem=1500M,node=1,billing=2", "root", 0, 0);
        assertThat(SlurmHold.of(hold, "holds")).contains(
                new SlurmHold(7, "node1", "node-a", 2, 1500, true, true, "None", "root"));
        assertThat(SlurmHold.of(hold, "other")).isEmpty();
        SlurmJob user = new SlurmJob(8, "colocate-hold", "RUNNING", "None", "node1", null, 1, "holds", "mine", "", "root", 0, 0);
        assertThat(SlurmHold.of(user, "holds")).as("no colocate: comment").isEmpty();
        SlurmJob done = new SlurmJob(9, "colocate-hold", "CANCELLED", "None", "node1", null, 1, "holds",
                "colocate:node-a", "cpu=1,mem=1M", "root", 0, 0);
        assertThat(SlurmHold.of(done, "holds")).isEmpty();
    }
}
