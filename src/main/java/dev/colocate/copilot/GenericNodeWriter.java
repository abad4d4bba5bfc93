package dev.colocate.copilot;

import dev.colocate.api.GenericNode;
import dev.colocate.api.GenericNodeSpec;
import dev.colocate.api.GenericNodeStatus;
import dev.colocate.api.Reservation;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import java.util.Map;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

/** Creates, deletes and patches GenericNodes. Status writes carry the resourceVersion they were computed from. */
@ApplicationScoped
public class GenericNodeWriter {

    private final KubernetesClient client;

    @Inject
    public GenericNodeWriter(KubernetesClient client) {
        this.client = client;
    }

    /** A new GenericNode for a node that became shared; an existing one is returned as it is. */
    public GenericNode create(SharedNode shared) {
        GenericNode gn = new GenericNode();
        gn.setMetadata(new ObjectMetaBuilder().withName(shared.nodeName()).build());
        GenericNodeSpec spec = new GenericNodeSpec();
        spec.setAlias(shared.alias());
        spec.setClusterName(shared.clusterName());
        gn.setSpec(spec);
        try {
            return client.resources(GenericNode.class).resource(gn).create();
        } catch (KubernetesClientException e) {
            if (e.getCode() == 409) {
                return client.resources(GenericNode.class).withName(shared.nodeName()).get();
            }
            throw e;
        }
    }

    /** Updates the spec when the node's Slurm alias or cluster changed. */
    public GenericNode updateSpec(GenericNode current, SharedNode shared) {
        GenericNode copy = Serialization.clone(current);
        copy.getSpec().setAlias(shared.alias());
        copy.getSpec().setClusterName(shared.clusterName());
        return client.resources(GenericNode.class).resource(copy).update();
    }

    public void delete(String name) {
        client.resources(GenericNode.class).withName(name).delete();
    }

    /**
     * Writes the status if it differs from the one shown. The write is a JSON patch of /status: a {@code test} that
     * the resourceVersion is still the one the status was computed from, then an {@code add} that sets the status
     * whole. A concurrent writer (the extender's reservations) thus makes it fail instead of being overwritten, and
     * lists are replaced, never merged (fabric8's patchStatus() diffs against a cached copy and appends to lists).
     *
     * @return whether anything was written
     */
    public boolean patchStatus(GenericNode current, GenericNodeStatus status) {
        KubernetesSerialization json = client.getKubernetesSerialization();
        // compared as JSON trees: field order (of maps, say) must not count as a change
        if (json.convertValue(status, JsonNode.class).equals(json.convertValue(current.getStatus(), JsonNode.class))) {
            return false;
        }
        List<Map<String, Object>> patch = List.of(
                Map.of("op", "test", "path", "/metadata/resourceVersion",
                        "value", current.getMetadata().getResourceVersion()),
                Map.of("op", "add", "path", "/status", "value", status));
        client.resources(GenericNode.class).withName(current.getMetadata().getName()).subresource("status")
                .patch(PatchContext.of(PatchType.JSON), json.asJson(patch));
        return true;
    }

    /**
     * Replaces the node's reservations, on the condition of the resourceVersion they were computed from: a concurrent
     * write (the sync's status, another bind) makes it fail with 409 Conflict rather than be lost.
     *
     * @return the GenericNode as written
     */
    public GenericNode patchReservations(GenericNode current, List<Reservation> reservations) {
        KubernetesSerialization json = client.getKubernetesSerialization();
        Map<String, Object> set;
        if (current.getStatus() == null) {
            GenericNodeStatus status = new GenericNodeStatus();
            status.setReservations(reservations);
            set = Map.of("op", "add", "path", "/status", "value", status);
        } else {
            set = Map.of("op", "add", "path", "/status/reservations", "value", reservations);
        }
        // the resourceVersion the list was computed from, in the patched object: the API server answers 409
        // Conflict when the GenericNode changed meanwhile (a JSON patch "test" would fail with 422 instead)
        List<Map<String, Object>> patch = List.of(
                Map.of("op", "replace", "path", "/metadata/resourceVersion",
                        "value", current.getMetadata().getResourceVersion()),
                set);
        return client.resources(GenericNode.class).withName(current.getMetadata().getName()).subresource("status")
                .patch(PatchContext.of(PatchType.JSON), json.asJson(patch));
    }

    /** The GenericNode as the API server has it now, bypassing the informer's cache. */
    public GenericNode fetch(String name) {
        return client.resources(GenericNode.class).withName(name).get();
    }
}
