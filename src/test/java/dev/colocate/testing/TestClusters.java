package dev.colocate.testing;

import dev.colocate.api.DatabaseSpec;
import dev.colocate.api.SlurmCluster;
import dev.colocate.api.WorkerGroupSpec;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceRequirementsBuilder;
import io.fabric8.kubernetes.api.model.SecretKeySelector;

/** Fluent SlurmClusters for tests: {@code aCluster("demo").withGroup("cpu", 2, "4", "8Gi").obj()}. */
public final class TestClusters {

    private final SlurmCluster cluster = new SlurmCluster();

    private TestClusters(String name) {
        cluster.getMetadata().setName(name);
        cluster.getMetadata().setNamespace("slurm");
        cluster.getMetadata().setUid("uid-" + name);
        cluster.getSpec().setImage("colocate/slurm:24.11");
    }

    public static TestClusters aCluster(String name) {
        return new TestClusters(name);
    }

    public TestClusters inNamespace(String namespace) {
        cluster.getMetadata().setNamespace(namespace);
        return this;
    }

    /** A worker group whose limits (the Slurm node's size) are {@code cpu} and {@code memory}. */
    public TestClusters withGroup(String name, int replicas, String cpu, String memory) {
        WorkerGroupSpec g = new WorkerGroupSpec();
        g.setGroupName(name);
        g.setReplicas(replicas);
        g.setResources(new ResourceRequirementsBuilder()
                .addToRequests("cpu", new Quantity("100m")).addToRequests("memory", new Quantity("256Mi"))
                .addToLimits("cpu", new Quantity(cpu)).addToLimits("memory", new Quantity(memory)).build());
        cluster.getSpec().getWorkerGroupSpecs().add(g);
        return this;
    }

    /** The last group added asks the device plugin for {@code gpus} NVIDIA GPUs per pod. */
    public TestClusters withGpus(int gpus) {
        var groups = cluster.getSpec().getWorkerGroupSpecs();
        groups.get(groups.size() - 1).getResources().getLimits()
                .put("nvidia.com/gpu", new Quantity(String.valueOf(gpus)));
        return this;
    }

    /** The last group added keeps its nodes to Slurm alone. */
    public TestClusters unshared() {
        var groups = cluster.getSpec().getWorkerGroupSpecs();
        groups.get(groups.size() - 1).setShared(false);
        return this;
    }

    public TestClusters withFile(String name, String text) {
        cluster.getSpec().getSlurmConfigs().getFilesInConfigMap().put(name, text);
        return this;
    }

    public TestClusters withImage(String image) {
        cluster.getSpec().setImage(image);
        return this;
    }

    public TestClusters withMungeSecret(String name) {
        cluster.getSpec().getMungeConfigs().setSecretName(name);
        return this;
    }

    public TestClusters signingRs256() {
        cluster.getSpec().getJwtConfigs().setAlgorithm(dev.colocate.api.JwtConfigs.Algorithm.RS256);
        return this;
    }

    public TestClusters withJwtSecret(String name) {
        cluster.getSpec().getJwtConfigs().setSecretName(name);
        return this;
    }

    public TestClusters withAccounting(String host, String user, String secret, String key) {
        DatabaseSpec db = new DatabaseSpec();
        db.setHost(host);
        db.setUser(user);
        db.setPasswordSecretRef(new SecretKeySelector(key, secret, false));
        cluster.getSpec().setAccounting(db);
        return this;
    }

    public SlurmCluster obj() {
        return cluster;
    }
}
