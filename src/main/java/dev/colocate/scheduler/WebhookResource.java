package dev.colocate.scheduler;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.admission.v1.AdmissionRequest;
import io.fabric8.kubernetes.api.model.admission.v1.AdmissionResponseBuilder;
import io.fabric8.kubernetes.api.model.admission.v1.AdmissionReview;
import io.fabric8.kubernetes.api.model.admission.v1.AdmissionReviewBuilder;
import jakarta.inject.Inject;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.jboss.logging.Logger;

/**
 * The optional mutating admission webhook (admission.k8s.io/v1) that opts pods in: helm/colocate's webhook.yaml
 * registers it for pod CREATE in namespaces labelled {@code colocate.dev/enabled=true}; {@link PodOptIn} decides.
 * It never denies a pod: the worst it does is leave one unchanged, with a warning.
 */
@Path("/webhook")
@Consumes(MediaType.APPLICATION_JSON)
@Produces(MediaType.APPLICATION_JSON)
public class WebhookResource {

    private static final Logger LOG = Logger.getLogger(WebhookResource.class);

    @Inject
    ObjectMapper json;

    /**
     * The review's answer: allowed, with the opt-in patch when the pod needs one. An input it cannot read (no
     * request, no Pod, not even JSON) is allowed unchanged with a warning, never denied: under
     * {@code failurePolicy: Fail} any other answer would reject the pod.
     */
    @POST
    @Path("/pods")
    public AdmissionReview pods(String body) {
        JsonNode tree;
        try {
            tree = json.readTree(body == null ? "" : body);
        } catch (JsonProcessingException e) {
            return unread(null, "the AdmissionReview is not JSON");
        }
        String uid = tree == null ? null : tree.path("request").path("uid").asText(null);
        if (uid == null) {
            return unread(null, "the AdmissionReview has no request.uid");
        }
        AdmissionRequest request;
        Pod pod;
        try {
            request = json.treeToValue(tree.path("request"), AdmissionRequest.class);
            pod = pod(request);
        } catch (JsonProcessingException | IllegalArgumentException e) {
            return unread(uid, "request.object is not a v1 Pod (" + e.getMessage() + ")");
        }
        AdmissionResponseBuilder response = new AdmissionResponseBuilder().withUid(uid).withAllowed(true);
        List<Map<String, Object>> patch = PodOptIn.patch(pod);
        if (!patch.isEmpty()) {
            response.withPatchType("JSONPatch").withPatch(Base64.getEncoder()
                    .encodeToString(toJson(patch).getBytes(StandardCharsets.UTF_8)));
            LOG.debugf("opting pod %s/%s in: %s", request.getNamespace(), podName(pod, request), patch);
        }
        return review(response.build());
    }

    private AdmissionReview unread(String uid, String why) {
        LOG.warnf("webhook: %s; the pod is admitted unchanged", why);
        return review(new AdmissionResponseBuilder().withUid(uid).withAllowed(true)
                .withWarnings("colocate did not opt this pod in: " + why).build());
    }

    private static AdmissionReview review(io.fabric8.kubernetes.api.model.admission.v1.AdmissionResponse response) {
        return new AdmissionReviewBuilder().withApiVersion("admission.k8s.io/v1").withKind("AdmissionReview")
                .withResponse(response).build();
    }

    /** fabric8 types request.object as a plain Object: Jackson hands it over as a map (or a Pod, when built so). */
    private Pod pod(AdmissionRequest request) {
        Object object = request.getObject();
        if (object instanceof Pod pod) {
            return pod;
        }
        if (object instanceof Map<?, ?> map && "Pod".equals(map.get("kind"))) {
            return json.convertValue(map, Pod.class);
        }
        throw new IllegalArgumentException("request.object must be a v1 Pod");
    }

    private String toJson(Object value) {
        try {
            return json.writeValueAsString(value);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write a JSON patch", e);
        }
    }

    private static String podName(Pod pod, AdmissionRequest request) {
        // Pods from a controller often have only generateName at admission time.
        String name = pod.getMetadata() == null ? null : pod.getMetadata().getName();
        return name != null ? name : request.getName() != null ? request.getName() : "(generated)";
    }
}
