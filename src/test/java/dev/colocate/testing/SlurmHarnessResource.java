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
    private String shareMode;
    private String resyncInterval;
    private String compactAfter;

    /**
     * Init args: {@code nodes}, how many slurmd to run (default 1); {@code release}, 22.05 (default), 24.11 or 26.05;
     * {@code jobSubmitLua}, true to install src/main/slurm/job_submit.lua; {@code shareMode}, the copilot's
     * {@code colocate.copilot.share-mode} (the product's default, hold, when absent); {@code resyncInterval}; {@code compactAfter};
     * {@code cpus} and {@code memoryMb} per node (8 and 32000 by default).
     */
    @Override
    public void init(Map<String, String> args) {
        shape = shape.withNodes(Integer.parseInt(args.getOrDefault("nodes", "1")));
        if (args.containsKey("cpus")) {
            shape = new SlurmHarness.Shape(shape.release(), shape.nodes(), Integer.parseInt(args.get("cpus")),
                    Integer.parseInt(args.get("memoryMb")), shape.jobSubmitLua());
        }
        if ("true".equals(args.get("jobSubmitLua"))) {
            shape = new SlurmHarness.Shape(shape.release(), shape.nodes(), shape.cpus(), shape.memoryMb(), true);
        }
        shareMode = args.get("shareMode");
        resyncInterval = args.get("resyncInterval");
        compactAfter = args.get("compactAfter");
        if ("24.11".equals(args.get("release"))) {
            shape = shape.on(SlurmHarness.Release.SLURM_24_11);
        } else if ("26.05".equals(args.get("release"))) {
            shape = shape.on(SlurmHarness.Release.SLURM_26_05);
        }
    }

    @Override
    public Map<String, String> start() {
        SlurmHarness harness = SlurmHarness.ensure(shape);
        registerShutdown();
        Map<String, String> config = new java.util.HashMap<>(Map.of(
                "test.slurm.release", shape.release().name(),
                "colocate.slurm.rest-url", harness.restUrl(),
                "colocate.slurm.jwt.key-file", harness.jwtKey().toString(),
                "colocate.slurm.scontrol.slurm-conf", harness.slurmConf().toString(),
                "colocate.copilot.slurmd-reregister-command", harness.reregisterCommand()));
        if (shareMode != null) {
            config.put("colocate.copilot.share-mode", shareMode);
        }
        if (resyncInterval != null) {
            config.put("colocate.copilot.resync-interval", resyncInterval);
        }
        if (compactAfter != null) {
            config.put("colocate.copilot.hold-compact-after", compactAfter);
        }
        return config;
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
