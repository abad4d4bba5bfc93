package dev.colocate.slurm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.colocate.slurm.rest.RestSlurmControl;
import io.smallrye.mutiny.Uni;
import jakarta.inject.Inject;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * {@link SlurmControl} against a real Slurm that writes nodes over REST (24.11, 26.05): the highest API version is
 * chosen from /openapi/v3, and node writes go over REST with {@code POST node/{name}}.
 */
abstract class RestSlurmContractScenarios {

    static final Duration WAIT = Duration.ofSeconds(30);

    @Inject
    SlurmControl slurm;

    @Inject
    CompositeSlurmControl composite;

    @Inject
    RestSlurmControl rest;

    private static <T> T get(Uni<T> uni) {
        return uni.await().atMost(WAIT);
    }

    /** The API version colocate must choose on this release. */
    abstract String expectedVersion();

    /** The release slurmctld reports. */
    abstract String expectedRelease();

    @Test
    void speaksTheHighestVersionAndWritesNodesOverRest() {
        assertThat(get(rest.dialect()).version()).isEqualTo(expectedVersion());
        assertThat(get(composite.writer())).isSameAs(rest);
        assertThat(get(slurm.ping()).release()).isEqualTo(expectedRelease());
    }

    @Test
    void lowersTheShareOverRestWhileAJobRunsAndReleasesAHeldJob() {
        long running = get(slurm.submit(JobSpec.sleep("runs", 300, 6, 1000).on("node1")
                .withGres("k8scpu:6,k8smemory:1000")));
        try {
            await().atMost(WAIT).untilAsserted(() -> assertThat(job(running).state()).isEqualTo("RUNNING"));
            long waiting = get(slurm.submit(JobSpec.sleep("waits", 300, 4, 1000).on("node1")
                    .withGres("k8scpu:4,k8smemory:1000")));
            try {
                await().atMost(WAIT).untilAsserted(() -> assertThat(job(waiting).reason()).isEqualTo("Resources"));

                get(slurm.setKubernetesShare("node1", 3, 12000));

                SlurmNode node = get(slurm.node("node1"));
                assertThat(node.gres()).containsEntry("k8scpu", 3L).containsEntry("k8smemory", 12000L);
                assertThat(node.gresUsed()).containsEntry("k8scpu", 6L);
                assertThat(job(running).state()).isEqualTo("RUNNING");
                await().atMost(WAIT).untilAsserted(() -> assertThat(get(slurm.heldJobs("BadConstraints")))
                        .extracting(SlurmJob::id).contains(waiting));

                get(slurm.setKubernetesShare("node1", 8, 32000));
                get(slurm.cancel(running));
                get(slurm.release(java.util.List.of(waiting)));
                await().atMost(WAIT).untilAsserted(() -> assertThat(job(waiting).state()).isEqualTo("RUNNING"));
            } finally {
                get(slurm.cancel(waiting));
            }
        } finally {
            get(slurm.cancel(running));
            get(slurm.setKubernetesShare("node1", 8, 32000));
        }
    }

    private SlurmJob job(long id) {
        return get(slurm.jobs()).stream().filter(j -> j.id() == id).findFirst()
                .orElseThrow(() -> new AssertionError("Slurm does not know job " + id));
    }
}
