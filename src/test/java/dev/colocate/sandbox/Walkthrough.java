package dev.colocate.sandbox;

import static dev.colocate.testing.TestPods.aPod;

import dev.colocate.api.GenericNode;
import dev.colocate.copilot.GenericNodeStatuses;
import dev.colocate.testing.KubeHarness;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.PrintStream;
import java.util.Comparator;

/**
 * DESIGN §1.3-1.4 on the sandbox, with the copilot walkthrough's numbers: DaemonSet pods hold 735m and 1369Mi on each
 * 8-CPU node; one replica of a Deployment makes it 1735m/2393Mi on node-a, a 3-CPU job runs there, the second replica
 * makes it 2735m/3417Mi, so that a second 3-CPU job pends with (Resources) and a 3-CPU pod is refused by filter.
 * node-b is busy with a 7-CPU job, so that nothing of that fits there either.
 */
final class Walkthrough {

    static final String WEB_CPU = "1";
    static final String WEB_MEMORY = "1Gi";

    private final KubeHarness kube;
    private final KubernetesClient client;
    private final Slurm slurm;
    private final PrintStream out;

    Walkthrough(KubeHarness kube, KubernetesClient client, Slurm slurm, PrintStream out) {
        this.kube = kube;
        this.client = client;
        this.slurm = slurm;
        this.out = out;
    }

    void run() {
        step("1. Two 8-CPU nodes shared with Slurm; DaemonSet pods (kube-proxy, log-agent) hold 735m CPU and\n"
                + "      1369Mi on each, and someone else's 7-CPU job runs on node2");
        awaitHolds("node-a", "Kubernetes", "735m");
        awaitHolds("node-b", "Kubernetes", "735m");
        long background = submit("-w", "node2", "--cpus-per-task=7", "--mem=8000");
        Sandbox.awaitThat("job " + background + " to run", () -> slurm.state(background).startsWith("RUNNING"));
        awaitHolds("node-b", "Slurm", "7");
        kubectl("get", "nodes");

        step("2. A Deployment web of 1 replica, " + WEB_CPU + " CPU and " + WEB_MEMORY + " per pod; its pods opt in with\n"
                + "      schedulerName colocate-scheduler and a toleration of colocate.dev/shared=true:NoSchedule");
        Pod template = aPod("web").labelled("app", "web").requesting(WEB_CPU, WEB_MEMORY).obj();
        command("kubectl apply -f web.yaml      # the Deployment, made by the sandbox through the API");
        client.resource(Sandbox.deployment("web", 1, template)).create();
        out.println("deployment.apps/web created");
        awaitWebPods(1);
        awaitHolds("node-a", "Kubernetes", "1735m");
        kubectl("get", "pods", "-l", "app=web", "-o", "wide");
        kubectl("get", "genericnode");

        step("3. A Slurm job");
        long job = submit("--cpus-per-task=3", "--mem=4000");
        Sandbox.awaitThat("job " + job + " to run", () -> slurm.state(job).startsWith("RUNNING"));
        out.println("job " + job + ": " + slurm.run("squeue", "-h", "-j", String.valueOf(job), "-o", "%T on %N")
                .strip());
        awaitHolds("node-a", "Slurm", "3");

        step("4. The Deployment scaled to 2: the controller-manager makes the pod, kube-scheduler asks colocate");
        kubectl("scale", "deployment", "web", "--replicas=2");
        awaitWebPods(2);
        awaitHolds("node-a", "Kubernetes", "2735m");
        kubectl("get", "pods", "-l", "app=web", "-o", "wide");
        kubectl("get", "genericnode");

        step("5. What Kubernetes holds, Slurm cannot have: node1 has 8 - 2735m - 3 = 2.265 CPUs left,\n"
                + "      node2 8 - 735m - 7 = 0.265");
        long pending = submit("--cpus-per-task=3", "--mem=4000");
        Sandbox.awaitThat("job " + pending + " to wait for resources",
                () -> slurm.state(pending).equals("PENDING Resources"));
        command("squeue");
        out.print(slurm.run("squeue"));

        step("6. What Slurm holds, Kubernetes cannot have: a pod that requests 3 CPUs");
        command("kubectl apply -f big.yaml      # requests 3 CPUs and 1Gi, opted in like the Deployment");
        client.resource(Sandbox.optedIn(aPod("big").requesting("3", "1Gi").obj())).create();
        out.println("pod/big created");
        Sandbox.awaitThat("big to be refused", () -> refusal("big") != null);
        command("kubectl describe pod big | sed -n '/^Events:/,$p'");
        String described = kube.kubectl("describe", "pod", "big", "-n", "default");
        out.print(described.substring(described.indexOf("Events:")));
        StringBuilder overcommitted = new StringBuilder();
        for (GenericNode gn : client.resources(GenericNode.class).list().getItems().stream()
                .sorted(Comparator.comparing(g -> g.getMetadata().getName())).toList()) {
            overcommitted.append(' ').append(gn.getMetadata().getName()).append('=').append(gn.getStatus()
                    .getConditions().stream().filter(c -> c.getType().equals(GenericNodeStatuses.OVERCOMMITTED))
                    .map(c -> c.getStatus()).findFirst().orElse("Unknown"));
        }
        out.println();
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

    /** Runs kubectl as the cluster's admin, as a user at this machine would, and prints what it prints. */
    private void kubectl(String... args) {
        command("kubectl " + String.join(" ", args));
        out.print(kube.kubectl(args));
    }

    private long submit(String... options) {
        command("sbatch " + String.join(" ", options) + " --wrap 'sleep infinity'");
        long job = slurm.sbatch(options);
        out.println("Submitted batch job " + job);
        return job;
    }

    /** Waits until {@code n} pods of the Deployment run on node-a: bound by colocate, started by kwok. */
    private void awaitWebPods(int n) {
        Sandbox.awaitThat(n + " pods of web to run on node-a", () -> client.pods().inNamespace("default")
                .withLabel("app", "web").list().getItems().stream().filter(p -> "node-a".equals(p.getSpec()
                        .getNodeName()) && "Running".equals(p.getStatus().getPhase())).count() == n);
    }

    /** kube-scheduler's FailedScheduling event of the pod, once it has given up on every node; null before. */
    private Event refusal(String pod) {
        return client.v1().events().inNamespace("default").withField("involvedObject.name", pod).list().getItems()
                .stream().filter(e -> "FailedScheduling".equals(e.getReason())).findFirst().orElse(null);
    }

    /** Waits until the GenericNode's ledger shows {@code owner} holding {@code cpu}: the copilot has caught up. */
    private void awaitHolds(String node, String owner, String cpu) {
        Sandbox.awaitThat(node + " to show " + owner + " holding " + cpu + " CPU", () -> {
            GenericNode gn = client.resources(GenericNode.class).withName(node).get();
            if (gn == null || gn.getStatus() == null || gn.getStatus().getAllocatedResources() == null) {
                return false;
            }
            return gn.getStatus().getAllocatedResources().stream().anyMatch(a -> owner.equals(a.getType())
                    && a.getAllocated() != null && new Quantity(cpu).equals(a.getAllocated().get("cpu")));
        });
    }
}
