package dev.colocate.testing;

import dev.colocate.scheduler.ExtenderTypes.ExtenderArgs;
import dev.colocate.scheduler.ExtenderTypes.ExtenderBindingArgs;
import dev.colocate.scheduler.ExtenderTypes.ExtenderBindingResult;
import dev.colocate.scheduler.ExtenderTypes.ExtenderFilterResult;
import dev.colocate.scheduler.ExtenderTypes.HostPriority;
import io.fabric8.kubernetes.api.model.Binding;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;

/**
 * Plays kube-scheduler against colocate's extender over HTTP, as the colocate-scheduler profile configures it
 * (filter, prioritize and bind, nodeCacheCapable: node names only). It is a stand-in: no queue, no retries, no
 * scoring of its own. {@link #bindLikeTheApiServer} does what the API server does with a Binding, which fabric8's
 * mock API only stores: it sets the pod's nodeName.
 */
public final class SchedulerStandIn {

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final URI extender;

    /** {@code colocate} is colocate's base URI, for example http://localhost:8080. */
    public SchedulerStandIn(URI colocate) {
        this.extender = colocate.resolve("/scheduler/");
    }

    private <T> T post(String verb, Object body, Class<T> type) {
        HttpRequest request = HttpRequest.newBuilder(extender.resolve(verb)).timeout(Duration.ofSeconds(30))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(Serialization.asJson(body))).build();
        try {
            HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
            if (response.statusCode() != 200) {
                throw new IllegalStateException(verb + " answered HTTP " + response.statusCode() + ": "
                        + response.body());
            }
            return Serialization.unmarshal(response.body(), type);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    public ExtenderFilterResult filter(Pod pod, List<String> nodeNames) {
        return post("filter", new ExtenderArgs(pod, null, nodeNames), ExtenderFilterResult.class);
    }

    public List<HostPriority> prioritize(Pod pod, List<String> nodeNames) {
        return Arrays.asList(post("prioritize", new ExtenderArgs(pod, null, nodeNames), HostPriority[].class));
    }

    /** The extender's bind; null when it bound the pod, its error otherwise. */
    public String bind(Pod pod, String node) {
        return post("bind", new ExtenderBindingArgs(pod.getMetadata().getName(), pod.getMetadata().getNamespace(),
                pod.getMetadata().getUid(), node), ExtenderBindingResult.class).error();
    }

    /** Sets the pod's nodeName from the Binding colocate created, as the API server would have done at once. */
    public static void bindLikeTheApiServer(KubernetesClient client, Pod pod) {
        String namespace = pod.getMetadata().getNamespace();
        Binding binding = client.bindings().inNamespace(namespace).withName(pod.getMetadata().getName()).get();
        if (binding == null) {
            throw new IllegalStateException("colocate created no Binding for " + pod.getMetadata().getName());
        }
        client.pods().inNamespace(namespace).withName(pod.getMetadata().getName()).edit(p -> {
            p.getSpec().setNodeName(binding.getTarget().getName());
            return p;
        });
    }
}
