package dev.colocate.slurm.rest;

import com.fasterxml.jackson.databind.JsonNode;
import dev.colocate.config.SlurmConfig;
import dev.colocate.slurm.ControllerPing;
import dev.colocate.slurm.HoldRequest;
import dev.colocate.slurm.Hostlist;
import dev.colocate.slurm.JobSpec;
import dev.colocate.slurm.SlurmAuthException;
import dev.colocate.slurm.SlurmControl;
import dev.colocate.slurm.SlurmException;
import dev.colocate.slurm.SlurmJob;
import dev.colocate.slurm.SlurmMeters;
import dev.colocate.slurm.SlurmHold;
import dev.colocate.slurm.SlurmNode;
import dev.colocate.slurm.SlurmNodeWriter;
import dev.colocate.slurm.SlurmNotFoundException;
import dev.colocate.slurm.SlurmPartition;
import dev.colocate.slurm.SlurmRefusedException;
import dev.colocate.slurm.SlurmTokens;
import dev.colocate.slurm.SlurmUnavailableException;
import dev.colocate.slurm.Gres;
import io.quarkus.rest.client.reactive.QuarkusRestClientBuilder;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Typed;
import jakarta.inject.Inject;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import jakarta.ws.rs.core.Response;

/**
 * {@link SlurmControl} over slurmrestd. The API version is read once from {@code /openapi/v3} (or forced by config).
 * Reads are retried with jittered backoff when Slurm is unreachable; writes never are, since a write that timed out
 * may have taken effect.
 */
@ApplicationScoped
@Typed(RestSlurmControl.class)
public class RestSlurmControl implements SlurmControl, SlurmNodeWriter {

    /**
     * Slurm's error numbers for refused credentials: SLURM_PROTOCOL_AUTHENTICATION_ERROR (1007), ESLURM_ACCESS_DENIED
     * (2002), ESLURM_USER_ID_MISSING ("Invalid user id", 2010, e.g. a node write by a token that is neither root nor
     * SlurmUser) and the ESLURM_AUTH_* range (6000+).
     */
    static final Set<Integer> AUTH_ERRORS = Set.of(1007, 2002, 2010, 6000, 6001, 6002, 6003, 6004, 6005, 6006, 6007);
    /** ESLURM_INVALID_JOB_ID (2017) and ESLURM_INVALID_NODE_NAME (2018). */
    static final Set<Integer> NOT_FOUND_ERRORS = Set.of(2017, 2018);
    /**
     * ESLURM_ALREADY_DONE: the job ended before the cancel reached it. An unknown job id (2017) on cancel means the
     * same: slurmctld has already purged the ended job.
     */
    static final int ALREADY_DONE = 2021;

    private final SlurmRestApi api;
    private final SlurmConfig config;
    private final SlurmMeters meters;
    private final AtomicReference<Dialect> dialect = new AtomicReference<>();

    private final SlurmTokens tokens;
    /** Where this slurmrestd is, for errors. */
    private final URI url;

    /**
     * The configured slurmrestd's control. Its client is built here with its filter instance, as a SlurmCluster's is,
     * not from {@code quarkus.rest-client} config with the filter as a CDI provider: a provider the REST client looked
     * up lazily, on the first call, was seen to be a bare instance without its tokens (a NullPointerException on every
     * call) when a copilot that had just won its Lease made that call, with a second application in the test JVM.
     */
    @Inject
    public RestSlurmControl(SlurmConfig config, SlurmMeters meters, SlurmTokens tokens) {
        this(client(config.restUrl(), tokens, config), config, meters, tokens, config.restUrl());
    }

    private RestSlurmControl(SlurmRestApi api, SlurmConfig config, SlurmMeters meters, SlurmTokens tokens, URI url) {
        this.url = url;
        this.api = api;
        this.config = config;
        this.meters = meters;
        this.tokens = tokens;
        config.apiVersion().map(Dialects::of).ifPresent(dialect::set);
    }

    /**
     * A control for another slurmrestd than the configured one (a SlurmCluster's): its own client at {@code url},
     * presenting {@code tokens}, with the configured timeouts, retries and API version choice.
     */
    public static RestSlurmControl at(URI url, SlurmTokens tokens, SlurmConfig config, SlurmMeters meters) {
        return new RestSlurmControl(client(url, tokens, config), config, meters, tokens, url);
    }

    private static SlurmRestApi client(URI url, SlurmTokens tokens, SlurmConfig config) {
        return QuarkusRestClientBuilder.newBuilder()
                .baseUri(url)
                .connectTimeout(CONNECT_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
                .readTimeout(config.requestTimeout().toMillis(), TimeUnit.MILLISECONDS)
                .disableDefaultMapper(true)
                .register(new SlurmAuthFilter(tokens))
                // as quarkus.rest-client.logging.masked-headers does for the configured client: a user who turns on
                // request logging sees no token
                .loggingMaskedHeaders(java.util.Set.of(SlurmAuthFilter.TOKEN_HEADER))
                .build(SlurmRestApi.class);
    }

    /** Closes the client of a control made by {@link #at}; failures are only logged. */
    public void close() {
        if (api instanceof AutoCloseable c) {
            try {
                c.close();
            } catch (Exception e) {
                org.jboss.logging.Logger.getLogger(RestSlurmControl.class).debugf("closing a slurmrestd client: %s",
                        e.getMessage());
            }
        }
    }

    /** As {@code quarkus.rest-client.slurmrestd.connect-timeout} for the configured slurmrestd. */
    static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(2);

    /** The API version in use, read from the server on first need. */
    public Uni<Dialect> dialect() {
        Dialect known = dialect.get();
        if (known != null) {
            return Uni.createFrom().item(known);
        }
        return read("openapi", api.openapi(), Function.identity())
                .map(doc -> {
                    Dialect chosen = Dialects.choose(doc, config.apiVersion());
                    dialect.compareAndSet(null, chosen);
                    return dialect.get();
                });
    }

    /** Whether the server's API can write nodes (v0.0.40+); false on Slurm 22.05. */
    public Uni<Boolean> canWriteNodes() {
        return dialect().map(Dialect::canWriteNodes);
    }

    /** Whether the server's API can grant holds ({@code job/allocate}, v0.0.41+); false before Slurm 24.05. */
    public Uni<Boolean> canAllocate() {
        return dialect().map(Dialect::canAllocate);
    }

    @Override
    public Uni<ControllerPing> ping() {
        return dialect().flatMap(d -> read("ping", api.ping(d.version()), Function.identity())
                .flatMap(ping -> read("diag", api.diag(d.version()), diag -> d.ping(ping, diag))));
    }

    @Override
    public Uni<List<SlurmNode>> nodes() {
        return dialect().flatMap(d -> read("nodes", api.nodes(d.version()), d::nodes));
    }

    @Override
    public Uni<SlurmNode> node(String name) {
        Hostlist.requireNodeName(name);
        return nodes().map(all -> all.stream().filter(n -> n.name().equals(name)).findFirst()
                .orElseThrow(() -> new SlurmNotFoundException("node(" + name + ")", 0,
                        "Slurm has no node " + name)));
    }

    @Override
    public Uni<Void> setKubernetesShare(String node, long cpuCores, long memoryMb) {
        String gres = Gres.kubernetesShare(cpuCores, memoryMb);
        return updateNode("setKubernetesShare", node, d -> d.nodeUpdate(gres));
    }

    @Override
    public Uni<Void> resume(String node) {
        return updateNode("resume", node, Dialect::nodeResume);
    }

    @Override
    public Uni<Void> drain(String node, String reason) {
        return updateNode("drain", node, d -> d.nodeDrain(reason));
    }

    /** {@code POST node/{name}} with the dialect's body; refused where the API cannot update nodes (22.05). */
    private Uni<Void> updateNode(String verb, String node, Function<Dialect, Object> body) {
        Hostlist.requireNodeName(node);
        String op = verb + "(" + node + ")";
        return dialect().flatMap(d -> !d.canWriteNodes()
                ? Uni.createFrom().failure(new SlurmException(op, 0, "slurmrestd " + d.version()
                        + " has no node update (Slurm 22.05); use the scontrol node writer", null))
                : write(op, api.updateNode(d.version(), node, body.apply(d)), b -> null));
    }

    @Override
    public Uni<List<SlurmJob>> jobsOn(String node) {
        Hostlist.requireNodeName(node);
        return jobs().map(all -> all.stream().filter(j -> j.activeOn(node)).toList());
    }

    @Override
    public Uni<List<SlurmJob>> heldJobs(String reason) {
        return jobs().map(all -> all.stream().filter(j -> j.isPending() && reason.equals(j.reason())).toList());
    }

    @Override
    public Uni<List<SlurmJob>> jobs() {
        return dialect().flatMap(d -> read("jobs", api.jobs(d.version()), d::jobs));
    }

    @Override
    public Uni<java.util.Optional<List<SlurmJob>>> jobsChangedSince(long epochSeconds) {
        return dialect().flatMap(d -> read("jobsChangedSince", api.jobsSince(d.version(), epochSeconds)
                        .map(r -> r.getStatus() == 304 ? null : r),
                body -> java.util.Optional.of(d.jobs(body))))
                .onItem().ifNull().continueWith(java.util.Optional::empty);
    }

    @Override
    public Uni<Void> release(List<Long> jobIds) {
        return dialect().flatMap(d -> Uni.join().all(jobIds.stream()
                        .map(id -> write("release(" + id + ")", api.updateJob(d.version(), id, d.release()),
                                body -> (Void) null))
                        .toList())
                .andCollectFailures()
                .replaceWithVoid()
                .onFailure(io.smallrye.mutiny.CompositeException.class)
                .transform(f -> f.getCause() == null ? f : f.getCause()))
                .replaceWithVoid();
    }

    @Override
    public Uni<Long> submit(JobSpec job) {
        return dialect().flatMap(d -> write("submit(" + job.name() + ")", api.submit(d.version(), d.submitRequest(job)),
                d::submittedJobId));
    }

    @Override
    public Uni<Long> grantHold(HoldRequest hold) {
        String op = "grantHold(" + hold.node() + ")";
        return dialect().flatMap(d -> !d.canAllocate() ? noAllocate(op, d)
                : write(op, api.allocate(d.version(), d.allocateRequest(hold)), d::submittedJobId))
                // anything but a refused token or an unreachable Slurm is Slurm saying no, e.g. 2016 nodes busy
                .onFailure(f -> f instanceof SlurmException && !(f instanceof SlurmAuthException)
                        && !(f instanceof SlurmUnavailableException) && !(f instanceof SlurmRefusedException))
                .transform(f -> new SlurmRefusedException(op, ((SlurmException) f).errorNumber(),
                        stripOperation(f.getMessage(), op)));
    }

    @Override
    public Uni<Long> queueHold(HoldRequest hold) {
        String op = "queueHold(" + hold.node() + ")";
        return dialect().flatMap(d -> !d.canAllocate() ? noAllocate(op, d)
                : write(op, api.submit(d.version(), d.holdSubmitRequest(hold)), d::submittedJobId));
    }

    private static <T> Uni<T> noAllocate(String op, Dialect d) {
        return Uni.createFrom().failure(new SlurmException(op, 0, "slurmrestd " + d.version()
                + " has no job/allocate (before Slurm 24.05); use salloc and sbatch (the scontrol writer)", null));
    }

    private static String stripOperation(String message, String op) {
        String m = message.startsWith(op + ": ") ? message.substring(op.length() + 2) : message;
        return m.replaceAll(" \\(Slurm error \\d+\\)$", "");
    }

    /** The token's user: slurmrestd submits as the user the token speaks for. */
    @Override
    public Uni<String> holdsUser() {
        return Uni.createFrom().item(tokens.user());
    }

    @Override
    public Uni<List<SlurmHold>> holds(String partition) {
        return jobs().map(all -> all.stream().flatMap(j -> SlurmHold.of(j, partition).stream()).toList());
    }

    @Override
    public Uni<SlurmPartition> partition(String name) {
        return dialect().flatMap(d -> read("partitions", api.partitions(d.version()), d::partitions))
                .map(all -> all.stream().filter(p -> p.name().equals(name)).findFirst()
                        .orElseThrow(() -> new SlurmNotFoundException("partition(" + name + ")", 0,
                                "Slurm has no partition " + name)));
    }

    @Override
    public Uni<Void> cancel(long jobId) {
        return dialect().flatMap(d -> write("cancel(" + jobId + ")", api.cancel(d.version(), jobId), body -> null))
                .onFailure(f -> f instanceof SlurmException e
                        && (e.errorNumber() == ALREADY_DONE || e instanceof SlurmNotFoundException)).recoverWithNull()
                .replaceWithVoid();
    }

    /** A read: bounded, retried with jittered backoff while Slurm is unreachable, then mapped. */
    private <T> Uni<T> read(String op, Uni<Response> call, Function<JsonNode, T> map) {
        Duration timeout = config.requestTimeout();
        Uni<T> once = call.ifNoItem().after(timeout).fail()
                .onFailure().transform(f -> unavailable(op, f, timeout))
                // a null response is a call's own "nothing new" (jobsChangedSince's 304), passed on as null
                .map(r -> r == null ? null : map.apply(body(op, r)));
        return meters.timed(op, once
                .onFailure(SlurmUnavailableException.class).retry()
                .withBackOff(Duration.ofMillis(100), Duration.ofSeconds(1)).withJitter(0.5)
                .atMost(config.readRetries()));
    }

    /** A write: bounded and never retried, since one that timed out may still have taken effect. */
    private <T> Uni<T> write(String op, Uni<Response> call, Function<JsonNode, T> map) {
        Duration timeout = config.requestTimeout();
        return meters.timed(op, call.ifNoItem().after(timeout).fail()
                .onFailure().transform(f -> unavailable(op, f, timeout))
                .map(r -> map.apply(body(op, r))));
    }

    /** The body, or the typed error that Slurm's errors[] (or the status) describes. */
    private JsonNode body(String op, Response response) {
        String text = response.hasEntity() ? response.readEntity(String.class) : "";
        JsonNode body = JsonBodies.parse(text);
        if (body == null && !text.isBlank()) {
            // an HTML page from a proxy, a login form, another service on that port: not Slurm at all
            String type = response.getHeaderString("Content-Type");
            String start = text.strip().replaceAll("\\s+", " ");
            throw new SlurmException(op, 0, "the server at " + url + " is not slurmrestd, or not at this path: it "
                    + "answered HTTP " + response.getStatus() + " with " + (type == null ? "no content type" : type)
                    + " that is not Slurm's JSON (\"" + start.substring(0, Math.min(60, start.length())) + "\")",
                    null);
        }
        Dialect d = currentDialectOrDefault();
        List<SlurmError> errors = body == null ? List.of() : d.errors(body);
        int status = response.getStatus();
        if (errors.isEmpty() && status < 300 && body != null) {
            return body;
        }
        SlurmError first = errors.isEmpty() ? null : errors.get(0);
        String message = first != null ? first.message() : describe(status);
        int number = first == null ? 0 : first.number();
        if (d.isAuthFailure(status, first)) {
            tokens.refused();
            throw new SlurmAuthException(op, number, "Slurm refused colocate's token for user " + tokens.user()
                    + " (\"" + message + "\"): check that colocate.slurm.jwt.key-file is this cluster's jwt_hs256.key "
                    + "(slurmctld's log has the reason)", null);
        }
        if (status == 401 || status == 403 || AUTH_ERRORS.contains(number)) {
            tokens.refused();
            throw new SlurmAuthException(op, number, "Slurm refused colocate's credentials: " + message, null);
        }
        if (status == 404 || NOT_FOUND_ERRORS.contains(number)) {
            throw new SlurmNotFoundException(op, number, message);
        }
        throw new SlurmException(op, number, message, null);
    }

    private Dialect currentDialectOrDefault() {
        Dialect d = dialect.get();
        return d != null ? d : Dialects.of("v0.0.38");
    }

    private static String describe(int status) {
        return switch (status) {
            case 401 -> "slurmrestd wants a user name and token (HTTP 401)";
            case 404 -> "slurmrestd has no such endpoint (HTTP 404)";
            case 405 -> "slurmrestd does not allow this method here (HTTP 405)";
            default -> "slurmrestd answered HTTP " + status + " without an error in its body";
        };
    }

    private static Throwable unavailable(String op, Throwable failure, Duration timeout) {
        for (Throwable c = failure; c != null; c = c.getCause()) {
            if (c instanceof SlurmException slurm) {
                return slurm;
            }
        }
        if (failure instanceof TimeoutException || failure instanceof io.smallrye.mutiny.TimeoutException) {
            return new SlurmUnavailableException(op, "slurmrestd did not answer within " + timeout, failure);
        }
        Throwable root = failure;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        if (root instanceof java.io.IOException || failure instanceof jakarta.ws.rs.ProcessingException) {
            return new SlurmUnavailableException(op, "slurmrestd unreachable: " + root.getClass().getSimpleName()
                    + (root.getMessage() == null ? "" : " " + root.getMessage()), failure);
        }
        return failure;
    }
}
