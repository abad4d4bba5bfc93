package dev.colocate.copilot;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class FailureLogTest {

    @Test
    void eachCauseIsNewsOnceUntilTheNextSuccess() {
        FailureLog log = new FailureLog();

        assertThat(log.failed("node-a", "409 Conflict")).isTrue();
        assertThat(log.failed("node-a", "409 Conflict")).as("a repeat").isFalse();
        assertThat(log.failed("node-b", "409 Conflict")).as("another node").isTrue();
        assertThat(log.failed("node-a", "connection refused")).as("another cause").isTrue();
        assertThat(log.succeeded("node-a")).as("the end of a run of failures").isTrue();
        assertThat(log.succeeded("node-a")).isFalse();
        assertThat(log.failed("node-a", "connection refused")).as("news again after a success").isTrue();
    }
}
