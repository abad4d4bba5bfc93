package dev.colocate.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Real Slurm daemons on loopback: Slurm 22.05 from the host's packages (src/test/slurm/up.sh and down.sh) or Slurm
 * 24.11 from a Debian 13 root run through chroot (src/test/slurm/slurm-24.11/), and 26.05 the same way
 * (src/test/slurm/slurm-26.05/). One cluster of each release runs at a
 * time; asking for a different shape restarts it from clean state. Tests get their own directories and ports, so a
 * sandbox started from the README keeps running beside them.
 */
public final class SlurmHarness {

    /** A Slurm release the harness can run, with its scripts, state directory and ports. */
    public enum Release {
        SLURM_22_05("src/test/slurm", "/tmp/colocate-slurm-test",
                Map.of("CTLD_PORT", "16817", "REST_PORT", "16820", "SLURMD_PORT_BASE", "18001", "DBD_PORT", "16819")),
        SLURM_24_11("src/test/slurm/slurm-24.11", "/tmp/colocate-slurm-2411-test",
                Map.of("CTLD_PORT", "36817", "REST_PORT", "36820", "SLURMD_PORT_BASE", "37001")),
        /** Slurm 26.05 from Debian's forky on a Debian 13 root, through the same chroot scripts as 24.11. */
        SLURM_26_05("src/test/slurm/slurm-26.05", "/tmp/colocate-slurm-2605-test",
                Map.of("CTLD_PORT", "56817", "REST_PORT", "56820", "SLURMD_PORT_BASE", "57001"));

        final Path scripts;
        final Path dir;
        /** Ports apart from the sandbox's defaults (6817, 6820, 17001+) and the other release's. */
        final Map<String, String> ports;

        Release(String scripts, String dir, Map<String, String> ports) {
            this.scripts = Path.of(scripts).toAbsolutePath();
            this.dir = Path.of(dir);
            this.ports = ports;
        }
    }

    /**
     * The shape of the cluster a test needs.
     *
     * @param nodePrefix its nodes are named {@code nodePrefix + firstNode}, {@code nodePrefix + (firstNode + 1)}, ...
     */
    public record Shape(Release release, int nodes, int cpus, int memoryMb, boolean jobSubmitLua, String nodePrefix,
            int firstNode, Path jwks) {
        public Shape(Release release, int nodes, int cpus, int memoryMb, boolean jobSubmitLua) {
            this(release, nodes, cpus, memoryMb, jobSubmitLua, "node", 1, null);
        }

        public Shape(int nodes, int cpus, int memoryMb, boolean jobSubmitLua) {
            this(Release.SLURM_22_05, nodes, cpus, memoryMb, jobSubmitLua);
        }

        public static Shape single() {
            return new Shape(1, 8, 32000, false);
        }

        public Shape withNodes(int count) {
            return new Shape(release, count, cpus, memoryMb, jobSubmitLua, nodePrefix, firstNode, jwks);
        }

        public Shape on(Release other) {
            return new Shape(other, nodes, cpus, memoryMb, jobSubmitLua, nodePrefix, firstNode, jwks);
        }

        /** Nodes named as a SlurmCluster names its workers, e.g. {@code demo-worker-cpu-0}, ... */
        public Shape named(String prefix, int first) {
            return new Shape(release, nodes, cpus, memoryMb, jobSubmitLua, prefix, first, jwks);
        }

        /** slurmctld also verifies RS256 tokens against this JWKS file (24.11 and 26.05 harnesses). */
        public Shape verifyingJwks(Path file) {
            return new Shape(release, nodes, cpus, memoryMb, jobSubmitLua, nodePrefix, firstNode, file);
        }

        Map<String, String> env() {
            return Map.of(
                    "NUM_NODES", String.valueOf(nodes),
                    "NODE_CPUS", String.valueOf(cpus),
                    "NODE_MEM", String.valueOf(memoryMb),
                    "JOB_SUBMIT_LUA", jobSubmitLua ? "1" : "0",
                    "NODE_PREFIX", nodePrefix,
                    "NODE_FIRST", String.valueOf(firstNode),
                    "JWKS_FILE", jwks == null ? "" : jwks.toString());
        }
    }

    static final Path LOG = Path.of("target", "slurm-harness.log").toAbsolutePath();

    private final Shape shape;
    private final Map<String, String> exported;

    private SlurmHarness(Shape shape, Map<String, String> exported) {
        this.shape = shape;
        this.exported = exported;
    }

    /** A running cluster of the given shape: reused when one already runs, restarted clean otherwise. */
    public static synchronized SlurmHarness ensure(Shape shape) {
        requireRoot();
        Release r = shape.release();
        String wanted = shape.toString();
        if (Files.exists(shapeFile(r)) && !wanted.equals(read(shapeFile(r)))) {
            script(r, "down.sh", Map.of(), "--purge");
        }
        try {
            script(r, "up.sh", shape.env());
        } catch (IllegalStateException first) {
            // a cluster that failed to come up must not stay half up: the next class would find it running with
            // another configuration and fail too. Seen once in CI: Slurm 24.11's slurmrestd could not bind its socket
            // ("Address already in use"). One more try from clean; a second failure is the test's.
            keepLogs(r);
            script(r, "down.sh", Map.of(), "--purge");
            try {
                script(r, "up.sh", shape.env());
            } catch (IllegalStateException second) {
                script(r, "down.sh", Map.of(), "--purge");
                second.addSuppressed(first);
                throw second;
            }
        }
        write(shapeFile(r), wanted);
        return new SlurmHarness(shape, EnvFile.read(r.dir.resolve("env.sh"),
                "SLURM_CONF", "SLURM_REST_URL", "SLURM_JWT_KEY", "SLURM_NODES"));
    }

    /** Records the running cluster's shape beside its state, so that every class loader and JVM sees the same one. */
    private static Path shapeFile(Release release) {
        return release.dir.resolve("harness-shape");
    }

    /** Stops every cluster the harness started and wipes their state. */
    public static synchronized void shutdown() {
        for (Release r : Release.values()) {
            if (Files.exists(shapeFile(r))) {
                script(r, "down.sh", Map.of());
                keepLogs(r);
                script(r, "down.sh", Map.of(), "--purge");
            }
        }
    }

    /** Copies the daemons' logs to target/slurm-logs before their directory is wiped, for reading after a failure. */
    private static void keepLogs(Release release) {
        HarnessLogs.keep(release.dir.resolve("log"), Path.of("target", "slurm-logs", release.name()));
    }

    private static String read(Path file) {
        try {
            return Files.readString(file).strip();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void write(Path file, String content) {
        try {
            Files.writeString(file, content);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void requireRoot() {
        if (!"root".equals(System.getProperty("user.name"))) {
            throw new IllegalStateException("tests against real Slurm start daemons and need root; run the test "
                    + "command as root (see README), or leave them out with -DexcludedGroups=slurm,bench");
        }
    }

    /** Starts whatever daemon of this cluster is not running, e.g. after {@link #stop(String)}. */
    public void up() {
        Map<String, String> env = new HashMap<>(shape.env());
        env.put("SKIP_APT", "1");
        script(shape.release(), "up.sh", env);
    }

    /** Stops one daemon (slurmrestd, slurmctld, slurmd, slurmdbd), to simulate an outage. */
    public void stop(String daemon) {
        script(shape.release(), "down.sh", Map.of(), daemon);
    }

    /**
     * Restarts the slurmd of one node, leaving its jobs running. The node may come back drained, for example with
     * INVALID_REG when its count changed while jobs held the GRES; up.sh reports that with exit code 4.
     */
    public void restartSlurmd(String node) {
        script(shape.release(), "down.sh", Map.of(), "slurmd", node);
        Map<String, String> env = new HashMap<>(shape.env());
        env.put("SKIP_APT", "1");
        try {
            script(shape.release(), "up.sh", env);
        } catch (IllegalStateException e) {
            if (!e.getMessage().contains(" exited 4:")) {
                throw e;
            }
        }
    }

    /** Whether slurmctld wrote its job state (StateSaveLocation/job_state) after the given instant. */
    public boolean jobStateSavedAfter(java.time.Instant instant) {
        try {
            return Files.getLastModifiedTime(shape.release().dir.resolve("state").resolve("job_state")).toInstant()
                    .isAfter(instant);
        } catch (IOException e) {
            return false;
        }
    }

    /** A copy of slurmctld's StateSaveLocation as it is now, for {@link #killSlurmctldLosingStateSince}. */
    public Path snapshotState() {
        Path state = shape.release().dir.resolve("state");
        try {
            Path copy = Files.createTempDirectory("slurm-state");
            try (var files = Files.list(state)) {
                for (Path f : files.filter(Files::isRegularFile).toList()) {
                    Files.copy(f, copy.resolve(f.getFileName()), java.nio.file.StandardCopyOption.COPY_ATTRIBUTES);
                }
            }
            return copy;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * A crash that loses the jobs of its last moments: slurmctld is killed with SIGKILL and starts again from the
     * state {@link #snapshotState} saved, as if it had saved nothing since.
     */
    public void killSlurmctldLosingStateSince(Path snapshot) {
        killSlurmctldLosingStateSince(snapshot, () -> { });
    }

    /** {@link #killSlurmctldLosingStateSince(Path)}, running {@code whileDown} before slurmctld starts again. */
    public void killSlurmctldLosingStateSince(Path snapshot, Runnable whileDown) {
        killSlurmctld(() -> {
            Path state = shape.release().dir.resolve("state");
            try (var saved = Files.list(state)) {
                // what was saved since (job_state, written at the first job) goes; job scripts' directories stay
                for (Path f : saved.filter(Files::isRegularFile).toList()) {
                    if (!Files.exists(snapshot.resolve(f.getFileName()))) {
                        Files.delete(f);
                    }
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            try (var files = Files.list(snapshot)) {
                for (Path f : files.toList()) {
                    Files.copy(f, state.resolve(f.getFileName()), java.nio.file.StandardCopyOption.REPLACE_EXISTING,
                            java.nio.file.StandardCopyOption.COPY_ATTRIBUTES);
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            whileDown.run();
        });
    }

    /** Kills slurmctld with SIGKILL, as a crash would, and starts it again from its saved state. */
    public void killSlurmctld() {
        killSlurmctld(() -> { });
    }

    /** Kills slurmctld with SIGKILL, runs {@code whileDown}, and starts slurmctld again from its saved state. */
    public void killSlurmctld(Runnable whileDown) {
        Path pidFile = shape.release().dir.resolve("run").resolve("slurmctld.pid");
        try {
            long pid = Long.parseLong(Files.readAllLines(pidFile).get(0).strip());
            ProcessHandle.of(pid).ifPresent(p -> {
                p.destroyForcibly();
                p.onExit().orTimeout(30, TimeUnit.SECONDS).join();
            });
            // a killed slurmctld leaves its PID file, and the next one (24.11) writes its PID over it without
            // truncating it ("984\n3"), which up.sh then cannot read: remove it, as a supervisor would
            Files.deleteIfExists(pidFile);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        whileDown.run();
        up();
    }

    /**
     * Stops (SIGSTOP) or continues (SIGCONT) one daemon (slurmctld, slurmrestd, slurmdbd): stopped, it accepts
     * connections and answers nothing, as a hung daemon does; continued, it serves what queued up meanwhile.
     */
    public void freeze(String daemon, boolean frozen) {
        Path pidFile = shape.release().dir.resolve("run").resolve(daemon + ".pid");
        try {
            String pid = Files.readAllLines(pidFile).get(0).strip();
            Commands.run(List.of("kill", frozen ? "-STOP" : "-CONT", pid), Map.of(), java.time.Duration.ofSeconds(10));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * The command that makes one slurmd of this cluster register again (a SIGHUP), in the form
     * colocate.copilot.slurmd-reregister-command takes.
     */
    public String reregisterCommand() {
        return "kill -HUP \"$(cat " + shape.release().dir.resolve("run") + "/slurmd-{node}.pid)\"";
    }

    public String restUrl() {
        return exported.get("SLURM_REST_URL");
    }

    public Path slurmConf() {
        return Path.of(exported.get("SLURM_CONF"));
    }

    public Path jwtKey() {
        return Path.of(exported.get("SLURM_JWT_KEY"));
    }

    public List<String> nodeNames() {
        return Arrays.asList(exported.get("SLURM_NODES").trim().split("\\s+"));
    }

    public Shape shape() {
        return shape;
    }

    /** Runs a Slurm client command (scontrol, srun, squeue, ...) against this cluster and returns its stdout. */
    public String run(String... command) {
        List<String> argv = new ArrayList<>();
        String chroot = exported.get("SLURM_CHROOT_CMD");
        if (chroot != null) {
            // Slurm 24.11 and 26.05 run in their own roots: its client tools are reached through the harness's wrapper
            argv.addAll(Arrays.asList(chroot.trim().split("\\s+")));
        }
        argv.addAll(List.of(command));
        return Commands.run(argv, Map.of("SLURM_CONF", exported.get("SLURM_CONF")), Duration.ofSeconds(60));
    }

    /** Runs a Slurm client command as {@code nobody}, a user who is neither root nor SlurmUser. */
    public String runAsNobody(String... command) {
        List<String> argv = new ArrayList<>();
        String chroot = exported.get("SLURM_CHROOT_CMD");
        if (chroot != null) {
            argv.addAll(Arrays.asList(chroot.trim().split("\\s+")));
            argv.addAll(List.of("--user", "nobody"));
        } else {
            argv.addAll(List.of("setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups", "--"));
        }
        argv.addAll(List.of(command));
        return Commands.run(argv, Map.of("SLURM_CONF", exported.get("SLURM_CONF")), Duration.ofSeconds(60));
    }

    private static void script(Release release, String name, Map<String, String> env, String... args) {
        List<String> command = new ArrayList<>(List.of("bash", release.scripts.resolve(name).toString()));
        command.addAll(List.of(args));
        Map<String, String> withDir = new HashMap<>(env);
        withDir.put("SLURM_DIR", release.dir.toString());
        withDir.putAll(release.ports);
        String out = Commands.run(command, withDir, Duration.ofMinutes(10));
        try {
            Files.createDirectories(LOG.getParent());
            Files.writeString(LOG, "$ " + String.join(" ", command) + " " + env + "\n" + out,
                    StandardCharsets.UTF_8, java.nio.file.StandardOpenOption.CREATE,
                    java.nio.file.StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
