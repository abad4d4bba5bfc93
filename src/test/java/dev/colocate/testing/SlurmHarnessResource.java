package dev.colocate.testing;

import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import java.util.Map;

/**
 * Starts real Slurm for a {@code @QuarkusTest} and points colocate at it. Classes using it carry
 * {@code @Tag("slurm")}; the daemons stop when the run ends ({@link SlurmHarness#shutdown()} via a shutdown hook).
 */
public class SlurmHarnessResource implements QuarkusTestResourceLifecycleManager {

    private static final Thread SHUTDOWN = new Thread(SlurmHarness::shutdown, "slurm-harness-shutdown");

    private SlurmHarness.Shape shape = SlurmHarness.Shape.single();

    /**
     * Init args: {@code nodes}, how many slurmd to run (default 1); {@code release}, 22.05 (default) or 24.11;
     * {@code jobSubmitLua}, true to install src/main/slurm/job_submit.lua.
     */
    @Override
    public void init(Map<String, String> args) {
        shape = shape.withNodes(Integer.parseInt(args.getOrDefault("nodes", "1")));
        if ("true".equals(args.get("jobSubmitLua"))) {
            shape = new SlurmHarness.Shape(shape.release(), shape.nodes(), shape.cpus(), shape.memoryMb(), true);
        }
        if ("24.11".equals(args.get("release"))) {
            shape = shape.on(SlurmHarness.Release.SLURM_24_11);
        }
    }

    @Override
    public Map<String, String> start() {
        SlurmHarness harness = SlurmHarness.ensure(shape);
        registerShutdown();
        return Map.of(
                "test.slurm.release", shape.release().name(),
                "colocate.slurm.rest-url", harness.restUrl(),
                "colocate.slurm.jwt.key-file", harness.jwtKey().toString(),
                "colocate.slurm.scontrol.slurm-conf", harness.slurmConf().toString(),
                "colocate.copilot.slurmd-reregister-command", harness.reregisterCommand());
    }

    private static synchronized void registerShutdown() {
        try {
            Runtime.getRuntime().addShutdownHook(SHUTDOWN);
        } catch (IllegalArgumentException alreadyRegistered) {
            // one hook serves every test class
        }
    }

    @Override
    public void stop() {
        // the cluster outlives one test class; the shutdown hook stops it once
    }
}
