package dev.colocate.operator.model;

import static dev.colocate.testing.TestClusters.aCluster;
import static org.assertj.core.api.Assertions.assertThat;

import dev.colocate.api.SlurmCluster;
import dev.colocate.testing.TestClusters;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class SpecProblemsTest {

    private static final OperatorDefaults DEFAULTS = new OperatorDefaults("colocate/slurm:22.05", "cluster.local");

    private static Arguments row(String what, UnaryOperator<TestClusters> spec, String problem) {
        return Arguments.of(what, spec, problem);
    }

    static Stream<Arguments> specs() {
        return Stream.of(
                row("a valid spec", c -> c.withGroup("cpu", 2, "4", "8Gi"), null),
                row("no groups at all", c -> c, null),
                row("zero replicas", c -> c.withGroup("cpu", 0, "4", "8Gi"), null),
                row("a registry with a port and a tag", c -> c.withImage("registry:5000/slurm:24.11"), null),
                row("a digest", c -> c.withImage("slurm@sha256:" + "a".repeat(64)), null),
                row("duplicate group", c -> c.withGroup("cpu", 1, "4", "8Gi").withGroup("cpu", 2, "4", "8Gi"),
                        "spec.workerGroupSpecs[cpu]: groupName is used twice"),
                row("negative replicas", c -> c.withGroup("cpu", -1, "4", "8Gi"),
                        "spec.workerGroupSpecs[cpu].replicas is -1: it must be 0 to 10000"),
                row("a million replicas", c -> c.withGroup("cpu", 1_000_000, "4", "8Gi"),
                        "spec.workerGroupSpecs[cpu].replicas is 1000000"),
                row("an image without a tag", c -> c.withImage("colocate/slurm"),
                        "spec.image \"colocate/slurm\" has no tag or digest"),
                row("a registry port is not a tag", c -> c.withImage("registry:5000/slurm"), "has no tag"),
                row("a group without a whole CPU", c -> c.withGroup("cpu", 1, "500m", "8Gi"),
                        "spec.workerGroupSpecs[cpu].resources must give at least one whole cpu"),
                row("a bad group name", c -> c.withGroup("CPU_1", 1, "4", "8Gi"), "groupName \"CPU_1\""),
                row("a file name with a slash", c -> c.withFile("../etc/passwd", "x"), "is not a valid file name"),
                row("tabs, CRLF line ends and UTF-8 text", c -> c.withFile("slurm.conf",
                        "# Ü\r\nSchedulerParameters=bf_continue\tbf_window=1440\r\n"), null),
                row("binary bytes in slurm.conf", c -> c.withFile("slurm.conf", "SlurmctldPort=6817\n\u0000\u0007\u001b"),
                        "spec.slurmConfigs.filesInConfigMap[slurm.conf]: line 2 holds the control character U+0000"),
                row("bytes that were not UTF-8", c -> c.withFile("gres.conf", "Name=gpu\ufffd"),
                        "spec.slurmConfigs.filesInConfigMap[gres.conf]: line 1 holds U+FFFD"),
                row("accounting without its password", c -> c.withAccounting("db", "slurm", null, null),
                        "spec.accounting.passwordSecretRef needs name and key"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("specs")
    void specProblemsNameTheField(String what, UnaryOperator<TestClusters> spec, String problem) {
        SlurmCluster cluster = spec.apply(aCluster("c")).obj();
        if (problem == null) {
            assertThat(SpecProblems.of(cluster, DEFAULTS)).isEmpty();
        } else {
            assertThat(SpecProblems.of(cluster, DEFAULTS)).anySatisfy(p -> assertThat(p).contains(problem));
        }
    }
}
