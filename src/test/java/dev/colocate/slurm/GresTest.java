package dev.colocate.slurm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

class GresTest {

    @Test
    void readsCountsOfPlainTypedAndIndexedEntries() {
        assertThat(Gres.parse("k8scpu:8,k8smemory:16000")).isEqualTo(Map.of("k8scpu", 8L, "k8smemory", 16000L));
        assertThat(Gres.parse("gpu:a100:2(S:0-1),k8scpu:3")).isEqualTo(Map.of("gpu", 2L, "k8scpu", 3L));
        // an index list holds commas of its own
        assertThat(Gres.parse("gpu:a100:2(IDX:0,2),gpu:v100:1(IDX:1)")).isEqualTo(Map.of("gpu", 3L));
        assertThat(Gres.parse("gres/k8scpu:3,gres/k8smemory:4000")).isEqualTo(Map.of("k8scpu", 3L, "k8smemory", 4000L));
    }

    @Test
    void countsThatAreMultiplesOf1024ComeWithASuffix() {
        // seen on Slurm 22.05.8 for RealMemory=8192 with Gres=k8smemory:8192: nodes report k8smemory:8K
        assertThat(Gres.parse("k8scpu:8,k8smemory:8K")).isEqualTo(Map.of("k8scpu", 8L, "k8smemory", 8192L));
        assertThat(Gres.parse("k8smemory:1M,gpu:a100:2(S:0-1)")).isEqualTo(Map.of("k8smemory", 1048576L, "gpu", 2L));
        assertThat(Gres.parse("k8smemory:2G")).isEqualTo(Map.of("k8smemory", 2147483648L));
    }

    @Test
    void emptyAndNullSpellingsMeanNone() {
        assertThat(Gres.parse(null)).isEmpty();
        assertThat(Gres.parse("")).isEmpty();
        assertThat(Gres.parse("(null)")).isEmpty();
        assertThat(Gres.parse("N/A")).isEmpty();
    }

    @Test
    void theShareAlwaysNamesBothCounts() {
        assertThat(Gres.kubernetesShare(5, 12000)).isEqualTo("k8scpu:5,k8smemory:12000");
        assertThat(Gres.kubernetesShare(0, 0)).isEqualTo("k8scpu:0,k8smemory:0");
        assertThatThrownBy(() -> Gres.kubernetesShare(-1, 0)).hasMessageContaining("negative");
    }
}
