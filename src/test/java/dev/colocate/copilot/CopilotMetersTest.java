package dev.colocate.copilot;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

/**
 * The copilot's gauges read the running copilot's state, even on a registry that outlived an earlier one: Quarkus's
 * registry is Micrometer's global one, which an application restarted in the same JVM (tests, dev mode) shares.
 */
class CopilotMetersTest {

    private final MeterRegistry registry = new SimpleMeterRegistry();

    @Test
    void aNodesDrainedGaugeFollowsTheCopilotThatIsRunningNow() {
        CopilotMeters before = new CopilotMeters(registry);
        before.drained("k-3", false);

        CopilotMeters now = new CopilotMeters(registry);
        now.drained("k-3", true);

        assertThat(registry.get("colocate.node.drained").tag("node", "k-3").gauge().value()).isEqualTo(1.0);
        assertThat(registry.get("colocate.drained.nodes").gauge().value()).isEqualTo(1.0);
        assertThat(registry.find("colocate.node.drained").gauges()).hasSize(1);
    }

    @Test
    void aForgottenNodeLeavesNoGaugeAndComesBackAtItsNewState() {
        CopilotMeters meters = new CopilotMeters(registry);
        meters.drained("k-1", true);
        meters.forget("k-1");
        assertThat(registry.find("colocate.node.drained").gauges()).isEmpty();
        assertThat(registry.get("colocate.drained.nodes").gauge().value()).isZero();

        meters.drained("k-1", false);
        assertThat(registry.get("colocate.node.drained").tag("node", "k-1").gauge().value()).isZero();
    }
}
