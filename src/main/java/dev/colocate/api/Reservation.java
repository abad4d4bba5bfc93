package dev.colocate.api;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * Resources admitted to a pod by the scheduler extender's bind but not yet seen bound by the informer. They count as
 * Kubernetes' share until the pod shows up on the node or the reservation expires.
 */
public class Reservation {

    @JsonPropertyDescription("Namespace of the admitted pod.")
    private String namespace;

    @JsonPropertyDescription("Name of the admitted pod.")
    private String podName;

    @JsonPropertyDescription("UID of the admitted pod, so a recreated pod of the same name is not mistaken for it.")
    private String podUid;

    @JsonPropertyDescription("Requests reserved for the pod (cpu, memory), in Kubernetes quantity format.")
    private Map<String, Quantity> requests = new TreeMap<>();

    @JsonPropertyDescription("RFC 3339 time after which the reservation is dropped if the pod has not shown up bound.")
    private String expiresAt;

    public String getNamespace() {
        return namespace;
    }

    public void setNamespace(String namespace) {
        this.namespace = namespace;
    }

    public String getPodName() {
        return podName;
    }

    public void setPodName(String podName) {
        this.podName = podName;
    }

    public String getPodUid() {
        return podUid;
    }

    public void setPodUid(String podUid) {
        this.podUid = podUid;
    }

    public Map<String, Quantity> getRequests() {
        return requests;
    }

    public void setRequests(Map<String, Quantity> requests) {
        this.requests = requests;
    }

    public String getExpiresAt() {
        return expiresAt;
    }

    public void setExpiresAt(String expiresAt) {
        this.expiresAt = expiresAt;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Reservation other && Objects.equals(namespace, other.namespace)
                && Objects.equals(podName, other.podName) && Objects.equals(podUid, other.podUid)
                && Objects.equals(requests, other.requests) && Objects.equals(expiresAt, other.expiresAt);
    }

    @Override
    public int hashCode() {
        return Objects.hash(namespace, podName, podUid, requests, expiresAt);
    }
}
