package dev.colocate.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;

/**
 * colocate as it ships: the packaged application (target/quarkus-app) in its own JVM, in the prod profile, with the
 * given configuration. It can be stopped as an orchestrator stops it (SIGTERM) or killed as a crash does (SIGKILL).
 */
public final class ColocateProcess implements AutoCloseable {

    static final Path JAR = Path.of("target", "quarkus-app", "quarkus-run.jar");

    private final Process process;
    private final int port;
    private final Path log;

    private ColocateProcess(Process process, int port, Path log) {
        this.process = process;
        this.port = port;
        this.log = log;
    }

    /** Starts colocate with {@code config} (Quarkus/colocate properties) on a free port; output goes to {@code log}. */
    public static ColocateProcess start(Map<String, String> config, Path log) {
        return start(config, log, freePort());
    }

    /** Starts colocate with {@code config} on HTTP {@code port}; output goes to {@code log}. */
    public static ColocateProcess start(Map<String, String> config, Path log, int port) {
        return start(config, Map.of(), log, port);
    }

    /** As {@link #start(Map, Path, int)}, with environment variables too, as a Deployment's env sets them. */
    public static ColocateProcess start(Map<String, String> config, Map<String, String> env, Path log, int port) {
        if (!Files.exists(JAR)) {
            throw new IllegalStateException(JAR + " is missing: run mvn package first");
        }
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString()));
        command.addAll(jvmOptions());
        command.add("-Dquarkus.http.port=" + port);
        // a profiling knob for benchmarks, e.g. -XX:NativeMemoryTracking=summary
        String extra = System.getProperty("colocate.process.jvm-options", "").strip();
        if (!extra.isEmpty()) {
            command.addAll(List.of(extra.split("\\s+")));
        }
        // the copilot elects its leader by a Lease, as the chart's Deployment has it, unless a test says otherwise
        Map<String, String> all = new java.util.TreeMap<>(Map.of("colocate.copilot.leader-election.enabled", "true"));
        all.putAll(config);
        all.forEach((key, value) -> command.add("-D" + key + "=" + value));
        // as the image runs it: from its directory, where the options find the AppCDS archive (app-cds.jsa)
        command.addAll(List.of("-jar", JAR.getFileName().toString()));
        try {
            Files.createDirectories(log.toAbsolutePath().getParent());
            ProcessBuilder builder = new ProcessBuilder(command).directory(JAR.getParent().toFile())
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
            // as in a pod: the cluster's credentials are only what the test hands over (Failsafe's KUBECONFIG names
            // the file helm-java's lookups use)
            builder.environment().remove("KUBECONFIG");
            builder.environment().putAll(env);
            Process process = builder.start();
            return new ColocateProcess(process, port, log);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * The JVM options of every start: the image's, and a heap of 256 MB, what MaxRAMPercentage=50 gives in a pod
     * limited to 512 MiB (without it, the JVM here would size the heap from this machine's memory).
     */
    public static List<String> jvmOptions() {
        List<String> options = new ArrayList<>(shippedJvmOptions());
        options.add("-Xmx256m");
        return options;
    }

    /** The JVM options the image ships (JAVA_TOOL_OPTIONS in src/main/docker/Dockerfile.jvm), so that tests run them. */
    static List<String> shippedJvmOptions() {
        Path dockerfile = Path.of("src", "main", "docker", "Dockerfile.jvm");
        try {
            List<String> options = Files.readAllLines(dockerfile).stream()
                    .filter(l -> l.startsWith("ENV JAVA_TOOL_OPTIONS="))
                    .map(l -> l.substring("ENV JAVA_TOOL_OPTIONS=".length()).replace("\"", "").strip())
                    .flatMap(l -> java.util.Arrays.stream(l.split("\\s+"))).toList();
            if (options.isEmpty()) {
                throw new IllegalStateException(dockerfile + " sets no JAVA_TOOL_OPTIONS for the tests to run with");
            }
            return options;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static int freePort() {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public URI uri() {
        return URI.create("http://127.0.0.1:" + port);
    }

    /** Whether the process still runs (a copilot that lost its Lease exits, for its pod to be restarted). */
    public boolean isAlive() {
        return process.isAlive();
    }

    public long pid() {
        return process.pid();
    }

    /** Waits until /q/health/ready is UP (the copilot leads and Slurm answers), failing if the process exits. */
    public ColocateProcess awaitReady(Duration atMost) {
        return awaitUp("/q/health/ready", atMost);
    }

    /** Waits until /q/health/live is UP: the application serves, whatever Slurm and Kubernetes do. */
    public ColocateProcess awaitLive(Duration atMost) {
        return awaitUp("/q/health/live", atMost);
    }

    private ColocateProcess awaitUp(String check, Duration atMost) {
        HttpClient http = HttpClient.newHttpClient();
        Awaitility.await().atMost(atMost).pollInterval(Duration.ofMillis(200)).until(() -> {
            if (!process.isAlive()) {
                throw new IllegalStateException("colocate exited with " + process.exitValue() + "; see " + log);
            }
            try {
                return http.send(HttpRequest.newBuilder(uri().resolve(check)).build(),
                        HttpResponse.BodyHandlers.discarding()).statusCode() == 200;
            } catch (IOException notListeningYet) {
                return false;
            }
        });
        return this;
    }

    /** SIGKILL, as a crash or an OOM kill: no shutdown hook runs, nothing is cleaned up. */
    public void kill() {
        process.destroyForcibly();
        waitFor();
    }

    /** SIGTERM, as Kubernetes stops a pod, then waits for the exit. */
    @Override
    public void close() {
        if (process.isAlive()) {
            process.destroy();
            waitFor();
        }
    }

    private void waitFor() {
        try {
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
