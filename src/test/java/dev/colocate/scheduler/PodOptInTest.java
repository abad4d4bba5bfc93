package dev.colocate.scheduler;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Toleration;
import io.fabric8.kubernetes.api.model.TolerationBuilder;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PodOptInTest {

    private static Pod pod(String schedulerName, Toleration... tolerations) {
        return new PodBuilder().withNewMetadata().withName("p").endMetadata()
                .withNewSpec().withSchedulerName(schedulerName).withTolerations(tolerations.length == 0 ? null
                        : List.of(tolerations)).endSpec().build();
    }

    private static Toleration tol(String key, String operator, String value, String effect) {
        return new TolerationBuilder().withKey(key).withOperator(operator).withValue(value).withEffect(effect).build();
    }

    @Test
    void aPodForTheDefaultSchedulerIsRedirectedAndToleratesTheSharedTaint() {
        Map<String, Object> toleration = Map.of("key", "colocate.dev/shared", "operator", "Equal", "value", "true",
                "effect", "NoSchedule");
        assertThat(PodOptIn.patch(pod(null))).containsExactly(
                Map.of("op", "add", "path", "/spec/schedulerName", "value", "colocate-scheduler"),
                Map.of("op", "add", "path", "/spec/tolerations", "value", List.of(toleration)));
        assertThat(PodOptIn.patch(pod("default-scheduler", tol("other", "Exists", null, "NoExecute"))))
                .containsExactly(
                        Map.of("op", "add", "path", "/spec/schedulerName", "value", "colocate-scheduler"),
                        Map.of("op", "add", "path", "/spec/tolerations/-", "value", toleration));
    }

    @Test
    void aPodThatAlreadyToleratesTheTaintGetsNoSecondToleration() {
        assertThat(PodOptIn.patch(pod("colocate-scheduler", tol("colocate.dev/shared", "Equal", "true", "NoSchedule"))))
                .isEmpty();
        assertThat(PodOptIn.patch(pod("colocate-scheduler", tol("colocate.dev/shared", "Exists", null, null))))
                .isEmpty();
        assertThat(PodOptIn.patch(pod("colocate-scheduler", tol(null, "Exists", null, null)))).isEmpty();
        // tolerations that do not cover the taint: another value, another effect, an empty key with Equal
        for (Toleration t : List.of(tol("colocate.dev/shared", "Equal", "false", "NoSchedule"),
                tol("colocate.dev/shared", "Exists", null, "NoExecute"), tol(null, "Equal", "true", null))) {
            assertThat(PodOptIn.patch(pod("colocate-scheduler", t))).as("%s", t).hasSize(1)
                    .first().extracting(op -> op.get("path")).isEqualTo("/spec/tolerations/-");
        }
    }

    @Test
    void podsBoundAlreadyOrForAnotherSchedulerAreLeftAlone() {
        assertThat(PodOptIn.patch(pod("volcano"))).isEmpty();
        Pod bound = pod(null);
        bound.getSpec().setNodeName("node-a");
        assertThat(PodOptIn.patch(bound)).isEmpty();
        assertThat(PodOptIn.patch(new PodBuilder().build())).isEmpty();
    }
}
