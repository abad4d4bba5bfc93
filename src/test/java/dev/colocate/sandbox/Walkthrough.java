package dev.colocate.sandbox;

import static dev.colocate.testing.TestPods.aPod;

import dev.colocate.api.GenericNode;
import dev.colocate.copilot.GenericNodeStatuses;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.PrintStream;
import java.util.List;

/**
 * DESIGN §1.3-1.4 on the sandbox: an 8-CPU node where Kubernetes holds 2735m and a Slurm job 3 CPUs, so that a
 * 3-CPU Slurm job pends with (Resources) and a 3-CPU pod is refused by filter. The other node is busy with a 6-CPU
 * job, so that neither fits there either.
 */
final class Walkthrough {

    static final String WEB_CPU = "1250m";
    static final String WEB_MEMORY = "1536Mi";

    private final KubernetesClient client;
    private final Slurm slurm;
    private final StandInScheduler scheduler;
    private final PrintStream out;

    Walkthrough(KubernetesClient client, Slurm slurm, StandInScheduler scheduler, PrintStream out) {
        this.client = client;
        this.slurm = slurm;
        this.scheduler = scheduler;
        this.out = out;
    }

    void run() {
        step("1. Two 8-CPU nodes shared with Slurm; DaemonSet pods hold 235m CPU and 345Mi on each,\n"
                + "      and someone else's 6-CPU job runs on node2");
        long background = submit("-w", "node2", "--cpus-per-task=6", "--mem=8000");
        Sandbox.awaitThat("job " + background + " to run", () -> slurm.state(background).startsWith("RUNNING"));
        awaitHolds("node-b", "Slurm", "6");
        awaitHolds("node-a", "Kubernetes", "235m");
        table();

        step("2. A Slurm job");
        long job = submit("--cpus-per-task=3", "--mem=4000");
        Sandbox.awaitThat("job " + job + " to run", () -> slurm.state(job).startsWith("RUNNING"));
        out.println("job " + job + ": " + slurm.run("squeue", "-h", "-j", String.valueOf(job), "-o", "%T on %N")
                .strip());
        awaitHolds("node-a", "Slurm", "3");

        step("3. A Deployment scaled to 2, " + WEB_CPU + " CPU and " + WEB_MEMORY + " per pod; its pods opt in with\n"
                + "      schedulerName colocate-scheduler and a toleration of colocate.dev/shared=true:NoSchedule");
        Pod template = aPod("web").labelled("app", "web").requesting(WEB_CPU, WEB_MEMORY).obj();
        client.resource(Sandbox.deployment("web", 0, template)).create();
        command("kubectl scale deployment web --replicas=2      # the sandbox does it: the mock API runs no controllers");
        client.apps().deployments().inNamespace("default").withName("web").edit(d -> {
            d.getSpec().setReplicas(2);
            return d;
        });
        List<String> replicas = List.of("web-1", "web-2");
        out.println("[stand-in Deployment controller] creates default/" + String.join(" and default/", replicas));
        for (String name : replicas) {
            Pod pod = Sandbox.optedIn(aPod(name).labelled("app", "web").requesting(WEB_CPU, WEB_MEMORY).obj());
            client.resource(pod).create();
            Sandbox.awaitThat(name + " to be scheduled", () -> scheduler.decision("default", name) != null
                    && scheduler.decision("default", name).node() != null);
        }
        awaitHolds("node-a", "Kubernetes", "2735m");
        table();

        step("4. What Kubernetes holds, Slurm cannot have: node1 has 8 - 2735m - 3 = 2.265 CPUs left,\n"
                + "      node2 8 - 235m - 6 = 1.765");
        long pending = submit("--cpus-per-task=3", "--mem=4000");
        Sandbox.awaitThat("job " + pending + " to wait for resources",
                () -> slurm.state(pending).equals("PENDING Resources"));
        command("squeue");
        out.print(slurm.run("squeue"));

        step("5. What Slurm holds, Kubernetes cannot have: a pod that requests 3 CPUs");
        command("kubectl run big ...      # requests 3 CPUs and 1Gi, opted in like the Deployment");
        client.resource(Sandbox.optedIn(aPod("big").requesting("3", "1Gi").obj())).create();
        Sandbox.awaitThat("big to be judged", () -> scheduler.decision("default", "big") != null);
        out.println();
        StringBuilder overcommitted = new StringBuilder();
        for (GenericNode gn : client.resources(GenericNode.class).list().getItems().stream()
                .sorted(java.util.Comparator.comparing(g -> g.getMetadata().getName())).toList()) {
            overcommitted.append(' ').append(gn.getMetadata().getName()).append('=').append(gn.getStatus()
                    .getConditions().stream().filter(c -> c.getType().equals(GenericNodeStatuses.OVERCOMMITTED))
                    .map(c -> c.getStatus()).findFirst().orElse("Unknown"));
        }
        out.println("What Kubernetes holds plus what Slurm holds never exceeded a node; colocate's own check of it,\n"
                + "the GenericNode condition Overcommitted:" + overcommitted);
    }

    private void step(String title) {
        out.println();
        out.println("== " + title);
    }

    private void command(String line) {
        out.println("$ " + line);
    }

    private long submit(String... options) {
        command("sbatch " + String.join(" ", options) + " --wrap 'sleep infinity'");
        long job = slurm.sbatch(options);
        out.println("Submitted batch job " + job);
        return job;
    }

    private void table() {
        command("kubectl get genericnode      # printed by the sandbox: the mock API serves no tables");
        out.print(GenericNodeTable.of(Sandbox.genericNodes(client)));
    }

    /** Waits until the GenericNode's ledger shows {@code owner} holding {@code cpu}: the copilot has caught up. */
    private void awaitHolds(String node, String owner, String cpu) {
        Sandbox.awaitThat(node + " to show " + owner + " holding " + cpu + " CPU", () -> {
            GenericNode gn = Sandbox.genericNode(client, node);
            if (gn == null || gn.getStatus() == null || gn.getStatus().getAllocatedResources() == null) {
                return false;
            }
            return gn.getStatus().getAllocatedResources().stream().anyMatch(a -> owner.equals(a.getType())
                    && a.getAllocated() != null && new Quantity(cpu).equals(a.getAllocated().get("cpu")));
        });
    }
}
