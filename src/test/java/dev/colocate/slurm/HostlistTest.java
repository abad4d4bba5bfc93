package dev.colocate.slurm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class HostlistTest {

    @Test
    void expandsRangesListsAndPadding() {
        assertThat(Hostlist.expand("node[1-3,7]")).containsExactly("node1", "node2", "node3", "node7");
        assertThat(Hostlist.expand("gpu[01-02],cpu5")).containsExactly("gpu01", "gpu02", "cpu5");
        assertThat(Hostlist.expand("vm")).containsExactly("vm");
        assertThat(Hostlist.expand("")).isEmpty();
        assertThat(Hostlist.expand("(null)")).isEmpty();
    }

    @Test
    void nodeNamesThatCouldSmuggleArgumentsAreRejected() {
        assertThat(Hostlist.isNodeName("node-1.rack_2")).isTrue();
        for (String bad : new String[] {"", " node1", "node1 Gres=gpu:8", "-node", "node1;reboot", "n[1-2]", "a=b"}) {
            assertThat(Hostlist.isNodeName(bad)).as(bad).isFalse();
        }
        assertThatThrownBy(() -> Hostlist.requireNodeName("node1 State=DOWN"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("not a Slurm node name");
    }
}
