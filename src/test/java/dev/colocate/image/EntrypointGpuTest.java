package dev.colocate.image;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.colocate.testing.Commands;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Slurm image's entrypoint refuses to start slurmd of a GPU group whose pod has fewer GPU devices than the group
 * offers (slurmd would register fewer, and Slurm would drain the node), and says where to look. It runs the script
 * itself, as root (it must start as root), up to that check, which comes before munged or slurmd start.
 */
class EntrypointGpuTest {

    private static final Path ENTRYPOINT = Path.of("src", "main", "slurm", "image", "entrypoint.sh");

    @TempDir
    Path dir;

    private record Exit(int code, String stderr) {
    }

    private Exit slurmdWith(int gpus, int devices) throws IOException, InterruptedException {
        Path etc = Files.createDirectories(dir.resolve("etc"));
        Files.writeString(etc.resolve("slurm.conf"), "SlurmUser=root\nSlurmdSpoolDir=" + dir.resolve("spool")
                + "/%n\nNodeName=w-0 CPUs=4 Gres=gpu:" + gpus + "\n");
        Files.writeString(etc.resolve("gres.conf"), "Name=k8scpu Flags=CountOnly\n");
        Path key = Files.write(dir.resolve("munge.key"), new byte[1024]);
        Path dev = Files.createDirectories(dir.resolve("dev"));
        for (int i = 0; i < devices; i++) {
            Commands.run(List.of("mknod", dev.resolve("nvidia" + (2 * i + 1)).toString(), "c", "195",
                    String.valueOf(2 * i + 1)), Map.of(), Duration.ofSeconds(5));
        }
        ProcessBuilder builder = new ProcessBuilder("bash", ENTRYPOINT.toString(), "slurmd");
        builder.environment().putAll(Map.of("SLURM_CONF", etc.resolve("slurm.conf").toString(),
                "MUNGE_KEY_FILE", key.toString(), "POD_NAME", "w-0", "SLURMD_GPUS", String.valueOf(gpus),
                "SLURMD_GPU_DEVICES", dev + "/nvidia[0-9]*"));
        Process p = builder.redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        return new Exit(p.exitValue(), new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8));
    }

    @Test
    void aGpuPodWithTooFewDevicesFailsNamingTheDevicePlugin() throws Exception {
        assumeTrue("root".equals(System.getProperty("user.name")), "the entrypoint and mknod need root");
        Exit exit = slurmdWith(2, 1);
        assertThat(exit.code()).as(exit.stderr()).isEqualTo(78);
        assertThat(exit.stderr()).contains("offers 2 GPUs (nvidia.com/gpu), but the pod has 1 GPU devices")
                .contains("NVIDIA device plugin");
    }
}
