package dev.colocate.testing;

import dev.colocate.operator.model.WorkerSize;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;

/**
 * TEST-SIDE STAND-IN for a kubelet: runs a pod template that the operator wrote to the (mock) API server on this
 * machine with src/test/slurm/pods/run-pod.sh. Its ConfigMap and Secret volumes are laid out under a directory as a
 * kubelet would (Secret files with their defaultMode), claims are empty directories, env comes from the template
 * (values, the pod's name for metadata.name, Secret keys), and the image's entrypoint is copied in as the image would
 * carry it. A volumeClaimTemplate's claim is a directory per pod; a claim the pod names is one directory for all. The host's own system (Slurm 22.05) is the image.
 */
public final class Kubelet implements AutoCloseable {

    private static final Path PODS = Path.of("src", "test", "slurm", "pods").toAbsolutePath();
    private static final Path ENTRYPOINT = Path.of("src", "main", "slurm", "image", "entrypoint.sh").toAbsolutePath();
    /** Where a pod finds the GPU devices the stand-in gives it. */
    private static final String GPU_DEVICES = "/var/lib/colocate-gpus";

    private final KubernetesClient client;
    private final String namespace;
    private final Path dir;

    public Kubelet(KubernetesClient client, String namespace, Path dir) {
        this.client = client;
        this.namespace = namespace;
        this.dir = dir;
    }

    /**
     * Starts a pod in the background.
     *
     * @param subdomain the StatefulSet's serviceName, or null
     * @param alias     a Service name that reaches the pod, or null
     */
    public void run(String podName, PodTemplateSpec template, String subdomain, String alias) {
        Container c = template.getSpec().getContainers().get(0);
        List<String> args = new ArrayList<>(List.of("bash", PODS.resolve("run-pod.sh").toString()));
        args.addAll(List.of("-f", ENTRYPOINT + ":" + c.getCommand().get(0)));
        if (subdomain != null) {
            args.addAll(List.of("-s", subdomain));
        }
        if (alias != null) {
            args.addAll(List.of("-a", alias));
        }
        if (template.getSpec().getHostname() != null) {
            args.addAll(List.of("-H", template.getSpec().getHostname()));
        }
        for (VolumeMount m : c.getVolumeMounts()) {
            Path src = volume(podName, template, m.getName());
            args.addAll(List.of("-v", src + ":" + m.getMountPath() + (Boolean.TRUE.equals(m.getReadOnly()) ? ":ro" : "")));
        }
        for (EnvVar e : c.getEnv()) {
            args.addAll(List.of("-E", e.getName() + "=" + envValue(podName, e)));
        }
        int gpus = gpus(c);
        if (gpus > 0) {
            // the pod's /tmp is its own: the devices are mounted in, at a path of the pod's
            args.addAll(List.of("-v", devices(podName, gpus) + ":" + GPU_DEVICES));
            args.addAll(List.of("-E", "SLURMD_GPU_DEVICES=" + GPU_DEVICES + "/nvidia[0-9]*"));
        }
        args.add(podName);
        args.add("--");
        args.addAll(c.getCommand());
        if (c.getArgs() != null) {
            args.addAll(c.getArgs());
        }
        exec(args, Duration.ofSeconds(30));
    }

    /**
     * Shows a running pod in the API as the workload controller, the scheduler and the kubelet together would: the
     * template's labels and spec, bound to {@code nodeName}, Running with its IP.
     */
    public void report(String podName, PodTemplateSpec template, String nodeName) {
        client.resource(new io.fabric8.kubernetes.api.model.PodBuilder()
                .withNewMetadata().withName(podName).withNamespace(namespace)
                .withLabels(template.getMetadata().getLabels()).endMetadata()
                .withSpec(new io.fabric8.kubernetes.api.model.PodSpecBuilder(template.getSpec())
                        .withNodeName(nodeName).build())
                .withNewStatus().withPhase("Running").withPodIP(ip(podName)).endStatus()
                .build()).create();
    }

    /** Gives a Service the address of the pod behind it, as kube-proxy makes its cluster IP reach a pod. */
    public void expose(String service, String podName) {
        client.services().inNamespace(namespace).withName(service)
                .edit(s -> new io.fabric8.kubernetes.api.model.ServiceBuilder(s).editSpec()
                        .withClusterIP(ip(podName)).endSpec().build());
    }

    /** Runs a command inside a running pod and returns its output. */
    public String exec(String podName, String... command) {
        List<String> args = new ArrayList<>(List.of("bash", PODS.resolve("exec-pod.sh").toString(), podName));
        args.addAll(List.of(command));
        return exec(args, Duration.ofSeconds(60));
    }

    /** The pod's IP address. */
    public String ip(String podName) {
        try {
            return Files.readString(dir.resolve("pods").resolve("pods").resolve(podName).resolve("ip")).strip();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The file a Secret's key was laid out at. */
    public Path secretFile(String secret, String key) {
        return dir.resolve("secrets").resolve(secret).resolve(key);
    }

    private Path volume(String podName, PodTemplateSpec template, String name) {
        Volume v = template.getSpec().getVolumes().stream().filter(x -> x.getName().equals(name)).findFirst()
                .orElse(null);
        try {
            if (v == null) {
                // a volumeClaimTemplate: the claim of this pod, empty the first time
                Path claim = dir.resolve("claims").resolve(name + "-" + podName);
                Files.createDirectories(claim);
                return claim;
            }
            if (v.getPersistentVolumeClaim() != null) {
                // a claim the pod names: one directory for every pod that mounts it, as ReadWriteMany storage
                Path claim = dir.resolve("claims").resolve(v.getPersistentVolumeClaim().getClaimName());
                Files.createDirectories(claim);
                return claim;
            }
            if (v.getConfigMap() != null) {
                Path out = dir.resolve("configmaps").resolve(v.getConfigMap().getName());
                Files.createDirectories(out);
                Map<String, String> data = client.configMaps().inNamespace(namespace)
                        .withName(v.getConfigMap().getName()).require().getData();
                for (var e : data.entrySet()) {
                    Files.writeString(out.resolve(e.getKey()), e.getValue(), StandardCharsets.UTF_8);
                }
                return out;
            }
            if (v.getSecret() != null) {
                String name2 = v.getSecret().getSecretName();
                Path out = dir.resolve("secrets").resolve(name2);
                Files.createDirectories(out);
                Secret s = client.secrets().inNamespace(namespace).withName(name2).require();
                for (var e : s.getData().entrySet()) {
                    Path f = out.resolve(e.getKey());
                    Files.write(f, Base64.getDecoder().decode(e.getValue()));
                    Files.setPosixFilePermissions(f, PosixFilePermissions.fromString(
                            mode(v.getSecret().getDefaultMode())));
                }
                return out;
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        throw new IllegalArgumentException("volume " + name + " of pod " + podName + " is of a kind this stand-in "
                + "does not lay out");
    }

    private static int gpus(Container c) {
        var limits = c.getResources() == null ? null : c.getResources().getLimits();
        var gpu = limits == null ? null : limits.get(WorkerSize.NVIDIA_GPU);
        return gpu == null ? 0 : gpu.getNumericalAmount().intValue();
    }

    /**
     * The NVIDIA device plugin's part: the pod gets {@code count} GPU character devices (NVIDIA's major number), named
     * by the host's minor numbers, which need not start at 0 nor follow each other. They are made in a directory
     * mounted into the pod, which the entrypoint is pointed at, rather than under the host's /dev.
     */
    private Path devices(String podName, int count) {
        Path devices = dir.resolve("devices").resolve(podName);
        try {
            Files.createDirectories(devices);
            for (int i = 0; i < count; i++) {
                int minor = 2 * i + 1;
                Commands.run(List.of("mknod", devices.resolve("nvidia" + minor).toString(), "c", "195",
                        String.valueOf(minor)), Map.of(), Duration.ofSeconds(5));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return devices;
    }

    private static String mode(Integer mode) {
        int m = mode == null ? 0644 : mode;
        StringBuilder sb = new StringBuilder();
        for (int shift = 6; shift >= 0; shift -= 3) {
            int bits = (m >> shift) & 7;
            sb.append((bits & 4) != 0 ? 'r' : '-').append((bits & 2) != 0 ? 'w' : '-').append((bits & 1) != 0 ? 'x' : '-');
        }
        return sb.toString();
    }

    private String envValue(String podName, EnvVar e) {
        if (e.getValue() != null) {
            return e.getValue();
        }
        var from = e.getValueFrom();
        if (from.getFieldRef() != null && "metadata.name".equals(from.getFieldRef().getFieldPath())) {
            return podName;
        }
        if (from.getSecretKeyRef() != null) {
            Secret s = client.secrets().inNamespace(namespace).withName(from.getSecretKeyRef().getName()).require();
            return new String(Base64.getDecoder().decode(s.getData().get(from.getSecretKeyRef().getKey())),
                    StandardCharsets.UTF_8);
        }
        throw new IllegalArgumentException("env " + e.getName() + " of pod " + podName + " has a source this stand-in "
                + "does not resolve");
    }

    private String exec(List<String> args, Duration timeout) {
        return Commands.run(args, Map.of("PODS_DIR", dir.resolve("pods").toString(), "POD_NAMESPACE", namespace),
                timeout);
    }

    /** What run-pod.sh keeps of a pod: its log, pid, address and hosts record. */
    private Path podDir(String podName) {
        return dir.resolve("pods").resolve("pods").resolve(podName);
    }

    /** The last lines a pod wrote (its daemons' output and run-pod.sh's), for a failed test's report. */
    public String log(String podName) {
        Path log = podDir(podName).resolve("log");
        try {
            List<String> lines = Files.readAllLines(log);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()));
        } catch (IOException e) {
            return "(no log of " + podName + ": " + e.getMessage() + ")";
        }
    }

    /** Stops one pod as the kubelet does (SIGTERM, SIGKILL after the grace period). */
    public void stop(String podName) {
        exec(List.of("bash", PODS.resolve("stop-pods.sh").toString(), podName), Duration.ofSeconds(60));
    }

    /**
     * Makes a pod look as it does when its node fails: it answers nothing, yet its name still resolves to its address,
     * since the Pod object stays (Unknown) and a headless Service publishing not-ready addresses keeps its record.
     */
    public void fail(String podName) {
        Path pod = podDir(podName);
        try {
            String record = Files.readString(pod.resolve("hosts"));
            stop(podName);
            Files.writeString(pod.resolve("hosts"), record);
            Path hosts = dir.resolve("pods").resolve("net").resolve("hosts");
            Files.writeString(hosts, Files.readString(hosts) + record);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Stops every pod it started and removes the pods' network. */
    @Override
    public void close() {
        exec(List.of("bash", PODS.resolve("stop-pods.sh").toString(), "--purge"), Duration.ofSeconds(90));
    }
}
