package dev.colocate.scheduler;

import static dev.colocate.testing.TestNodes.aNode;
import static dev.colocate.testing.TestPods.aPod;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.colocate.UnreachableSlurm;
import dev.colocate.api.GenericNode;
import dev.colocate.testing.ColocateProcess;
import dev.colocate.testing.GenericNodes;
import dev.colocate.testing.SchedulerStandIn;
import dev.colocate.testing.SlurmHarness;
import dev.colocate.testing.StandaloneApiServer;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.quarkus.test.kubernetes.client.WithKubernetesTestServer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.HexFormat;
import java.util.Map;
import java.util.UUID;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The packaged app, with every category at DEBUG and the REST client logging its requests and answers, reads Slurm's
 * key from a Secret as the chart has it do, admits a pod on real Slurm 22.05 in hold mode, and its log holds neither a
 * JWT nor Slurm's key, in any encoding. (A
 * {@code @QuarkusTest} only so that Quarkus stops any application an earlier class left running; its own runs neither
 * role, as in {@link CopilotRestartIT}.)
 */
@QuarkusTest
@Tag("slurm")
@WithKubernetesTestServer(crud = true)
@QuarkusTestResource(value = UnreachableSlurm.class, restrictToAnnotatedClass = true)
@TestProfile(CopilotRestartIT.Bystander.class)
class SecretsInLogsIT {

    static final Duration WAIT = Duration.ofSeconds(90);
    /** Any JSON Web Token: three base64url parts, the first two JSON objects. */
    static final Pattern JWT = Pattern.compile("eyJ[A-Za-z0-9_-]{8,}\\.eyJ[A-Za-z0-9_-]{8,}\\.[A-Za-z0-9_-]{16,}");

    @Test
    void aWholeAdmissionAtDebugLogsNoTokenAndNoKey() throws Exception {
        SlurmHarness slurm = SlurmHarness.ensure(SlurmHarness.Shape.single().withNodes(3));
        Path log = Path.of("target", "secrets-in-logs-it.log");
        Files.deleteIfExists(log);
        try (StandaloneApiServer api = new StandaloneApiServer(0)) {
            KubernetesClient client = api.client();
            client.nodes().resource(aNode("k-1").sharedWith("node1").allocatable("8", "32000Mi").obj()).create();
            // the key as the chart hands it over (app.externalSlurm.jwtKeySecret): a Secret read through the API,
            // whose answer the DEBUG log must not show either
            client.secrets().inNamespace("default").resource(new SecretBuilder().withNewMetadata()
                    .withName("slurm-jwt").endMetadata().addToData("jwt_hs256.key",
                            Base64.getEncoder().encodeToString(Files.readAllBytes(slurm.jwtKey()))).build()).create();
            Map<String, String> config = Map.of(
                    "kubernetes.master", api.url(),
                    "colocate.operator.enabled", "false",
                    "colocate.slurm.rest-url", slurm.restUrl(),
                    "colocate.slurm.jwt.key-secret", "slurm-jwt",
                    "colocate.slurm.scontrol.slurm-conf", slurm.slurmConf().toString(),
                    "colocate.copilot.resync-interval", "3s",
                    "quarkus.log.level", "DEBUG",
                    "quarkus.rest-client.logging.scope", "request-response",
                    "quarkus.log.category.\"org.jboss.resteasy.reactive.client.logging\".level", "DEBUG");
            try (ColocateProcess colocate = ColocateProcess.start(config, log).awaitReady(WAIT)) {
                GenericNodes.awaitReady(client, WAIT, "k-1");
                Pod pod = aPod("web-0").requesting("2", "2Gi").obj();
                pod.getMetadata().setUid(UUID.randomUUID().toString());
                pod = client.resource(pod).create();
                assertThat(new SchedulerStandIn(colocate.uri()).bind(pod, "k-1")).isNull();
                SchedulerStandIn.bindLikeTheApiServer(client, pod);
                await().atMost(WAIT).untilAsserted(() -> {
                    GenericNode gn = client.resources(GenericNode.class).withName("k-1").get();
                    assertThat(gn.getStatus().getHolds().getJobIds()).isNotEmpty();
                });
                client.pods().inNamespace("default").withName("web-0").delete();
                await().atMost(WAIT).until(() -> slurm.run("squeue", "-h", "-p", "holds").isBlank());
            } finally {
                slurm.run("scancel", "-p", "holds");
            }
        }

        String text = Files.readString(log, StandardCharsets.ISO_8859_1);
        assertThat(text).as("the DEBUG log is there at all").contains("DEBUG");
        assertThat(text).as("Slurm answered through the logged REST client").contains("/slurm/");
        byte[] key = Files.readAllBytes(slurm.jwtKey());
        var matcher = JWT.matcher(text);
        assertThat(matcher.find()).as("a JWT in %s: %s", log, matcher.hitEnd() ? "" : matcher.group()).isFalse();
        assertThat(text).as("the key in %s", log)
                .doesNotContain(Base64.getEncoder().encodeToString(key))
                .doesNotContain(Base64.getUrlEncoder().withoutPadding().encodeToString(key))
                .doesNotContain(HexFormat.of().formatHex(key))
                .doesNotContain(new String(key, StandardCharsets.ISO_8859_1));
    }
}
