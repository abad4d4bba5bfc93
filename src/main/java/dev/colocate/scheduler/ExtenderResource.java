package dev.colocate.scheduler;

import dev.colocate.copilot.ClusterView;
import dev.colocate.copilot.CopilotLeaderCheck;
import dev.colocate.copilot.CopilotLeadership;
import dev.colocate.copilot.FirstSyncs;
import dev.colocate.copilot.PodRequests;
import dev.colocate.copilot.Resources;
import dev.colocate.scheduler.ExtenderTypes.ExtenderArgs;
import dev.colocate.scheduler.ExtenderTypes.ExtenderBindingArgs;
import dev.colocate.scheduler.ExtenderTypes.ExtenderBindingResult;
import dev.colocate.scheduler.ExtenderTypes.ExtenderFilterResult;
import dev.colocate.scheduler.ExtenderTypes.HostPriority;
import io.smallrye.common.annotation.NonBlocking;
import jakarta.inject.Inject;
import jakarta.ws.rs.BadRequestException;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.ServiceUnavailableException;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ext.ExceptionMapper;
import jakarta.ws.rs.ext.Provider;
import java.util.List;

/**
 * kube-scheduler's extender protocol (k8s.io/kube-scheduler/extender/v1): filter, prioritize and bind. Filter and
 * prioritize read only the copilot's caches, a sum per candidate node, and run on the event loop that received them,
 * with no hand-off to a worker thread; bind blocks on Slurm and the API server and runs on a worker thread.
 */
@Path("/scheduler")
@Consumes(MediaType.APPLICATION_JSON)
@Produces(MediaType.APPLICATION_JSON)
public class ExtenderResource {

    @Inject
    Candidates candidates;

    @Inject
    Binder binder;

    @Inject
    AdmissionMeters meters;

    @Inject
    CopilotLeadership leadership;

    @Inject
    ClusterView view;

    @Inject
    FirstSyncs firstSyncs;

    /**
     * A standby copilot does not answer: only the leader serializes binds (it alone is ready, too); nor does a leader
     * still loading its caches and holds, which would judge pods against empty books.
     */
    private void requireLeader() {
        if (!leadership.leading()) {
            throw new ServiceUnavailableException("this copilot is a standby; the leader is "
                    + (leadership.leader() == null ? "unknown" : leadership.leader()));
        }
        if (!leadership.serving()) {
            throw new ServiceUnavailableException("this copilot is starting: it is loading its caches of the API "
                    + "server and its holds in Slurm");
        }
        String unsynced = CopilotLeaderCheck.unsynced(view, firstSyncs);
        if (unsynced != null) {
            throw new ServiceUnavailableException("this copilot is starting: it has not synced " + unsynced
                    + " yet");
        }
    }

    @POST
    @Path("/filter")
    @NonBlocking
    public ExtenderFilterResult filter(ExtenderArgs args) {
        requireLeader();
        Resources request = request(args);
        return meters.timed("filter", () -> {
            ExtenderFilterResult result = Filtering.filter(args, request, candidates.snapshot());
            meters.rejectedNodes("no_fit", result.failedNodes().size());
            meters.rejectedNodes("unjudged", result.failedAndUnresolvableNodes().size());
            return result;
        }, r -> r.failedNodes().isEmpty() && r.failedAndUnresolvableNodes().isEmpty() ? "passed" : "some_failed");
    }

    @POST
    @Path("/prioritize")
    @NonBlocking
    public List<HostPriority> prioritize(ExtenderArgs args) {
        requireLeader();
        Resources request = request(args);
        return meters.timed("prioritize", () -> Filtering.prioritize(args, request, candidates.snapshot()), r -> "ok");
    }

    @POST
    @Path("/bind")
    public ExtenderBindingResult bind(ExtenderBindingArgs args) {
        requireLeader();
        if (args == null || blank(args.podName()) || blank(args.podNamespace()) || blank(args.node())) {
            throw new BadRequestException("ExtenderBindingArgs needs PodName, PodNamespace and Node");
        }
        return meters.timed("bind", () -> {
            try {
                binder.bind(args);
                return new ExtenderBindingResult(null);
            } catch (Binder.Refused e) {
                return new ExtenderBindingResult(e.getMessage());
            }
        }, r -> r.error() == null ? "bound" : "refused");
    }

    private static Resources request(ExtenderArgs args) {
        if (args == null || args.pod() == null || args.pod().getSpec() == null) {
            throw new BadRequestException("ExtenderArgs needs Pod with its spec");
        }
        if (args.nodes() == null && args.nodeNames() == null) {
            throw new BadRequestException("ExtenderArgs needs Nodes or NodeNames");
        }
        try {
            return PodRequests.of(args.pod());
        } catch (RuntimeException e) {
            throw new BadRequestException("the pod's resource requests cannot be read: " + e.getMessage());
        }
    }

    private static boolean blank(String s) {
        return s == null || s.isBlank();
    }

    /** 503 with the reason as plain text: a standby, or a leader still starting; nothing was judged or changed. */
    @Provider
    public static class UnavailableMapper implements ExceptionMapper<ServiceUnavailableException> {
        @Override
        public Response toResponse(ServiceUnavailableException e) {
            return Response.status(503).type(MediaType.TEXT_PLAIN).entity(e.getMessage()).build();
        }
    }

    /** 400 with the reason as plain text, for a request the extender cannot use; nothing was changed. */
    @Provider
    public static class BadRequestMapper implements ExceptionMapper<BadRequestException> {
        @Override
        public Response toResponse(BadRequestException e) {
            return Response.status(400).type(MediaType.TEXT_PLAIN).entity(e.getMessage()).build();
        }
    }
}
