package dev.colocate.scheduler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.colocate.testing.Charts;
import dev.colocate.testing.Charts.Rendered;
import dev.colocate.testing.ColocateProcess;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhook;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookConfiguration;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The webhook as the API server calls it: the packaged colocate, given the certificate helm/colocate makes and the
 * profile its Deployment sets, serves /webhook/pods over HTTPS, and a client that trusts only the chart's
 * caBundle and names the webhook Service's host gets the opt-in patch. curl plays the API server.
 */
class WebhookTlsIT {

    @TempDir
    Path temp;

    @Test
    void servesTheOptInPatchOverTheChartsCertificate() throws Exception {
        List<Rendered> chart = Charts.render(Charts.COLOCATE,
                Map.of("app.scheduler.image", "kube-scheduler:v1.31.4", "app.webhook.enabled", "true"));
        Secret tls = Charts.get(chart, "Secret", "colocate-webhook-tls").as(Secret.class);
        MutatingWebhook webhook = Charts.get(chart, "MutatingWebhookConfiguration", "colocate-pod-opt-in")
                .as(MutatingWebhookConfiguration.class).getWebhooks().get(0);
        // the Secret as the pod mounts it: a directory of its keys
        Files.write(temp.resolve("tls.crt"), Base64.getDecoder().decode(tls.getData().get("tls.crt")));
        Files.write(temp.resolve("tls.key"), Base64.getDecoder().decode(tls.getData().get("tls.key")));
        Deployment deployment = Charts.get(chart, "Deployment", "colocate").as(Deployment.class);
        String profile = Charts.profile(deployment);
        Path ca = Files.write(temp.resolve("ca.crt"),
                Base64.getDecoder().decode(webhook.getClientConfig().getCaBundle()));
        byte[] jwtKey = new byte[32];
        new SecureRandom().nextBytes(jwtKey);
        Path slurmKey = Files.write(temp.resolve("jwt.key"), jwtKey);
        int https = ColocateProcess.freePort();

        // no Slurm and no API server: the webhook needs neither
        try (ColocateProcess colocate = ColocateProcess.start(
                Map.of("colocate.operator.enabled", "false", "colocate.copilot.enabled", "false",
                        "colocate.slurm.rest-url", "http://127.0.0.1:" + ColocateProcess.freePort(),
                        "colocate.slurm.jwt.key-file", slurmKey.toString(), "quarkus.http.ssl-port",
                        String.valueOf(https), "colocate.webhook.tls-dir", temp.toString()),
                // the profile the chart's pod annotation gives (the downward API makes it QUARKUS_PROFILE)
                Map.of("QUARKUS_PROFILE", profile),
                Path.of("target", "webhook-tls-it.log"), ColocateProcess.freePort())
                .awaitLive(Duration.ofSeconds(60))) {
            // Quarkus binds its HTTPS listener apart from the HTTP one that answered the liveness check
            await().atMost(Duration.ofSeconds(30)).until(() -> {
                try (Socket socket = new Socket("127.0.0.1", https)) {
                    return true;
                } catch (IOException notYet) {
                    return false;
                }
            });
            String host = webhook.getClientConfig().getService().getName() + "."
                    + webhook.getClientConfig().getService().getNamespace() + ".svc";
            Process curl = new ProcessBuilder("curl", "-sS", "--fail-with-body", "--cacert", ca.toString(),
                    "--resolve", host + ":" + https + ":127.0.0.1", "-H", "Content-Type: application/json",
                    "--data-binary", "@src/test/resources/webhook/pod-create.json",
                    "https://" + host + ":" + https + webhook.getClientConfig().getService().getPath())
                    .redirectErrorStream(true).start();
            String body = new String(curl.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(curl.waitFor(30, TimeUnit.SECONDS)).isTrue();

            assertThat(curl.exitValue()).as(body).isZero();
            Map<String, Object> response = (Map<String, Object>) Serialization.unmarshal(body, Map.class)
                    .get("response");
            assertThat(response).containsEntry("allowed", true).containsEntry("patchType", "JSONPatch");
            String patch = new String(Base64.getDecoder().decode((String) response.get("patch")),
                    StandardCharsets.UTF_8);
            assertThat(patch).contains("\"/spec/schedulerName\"", PodOptIn.SCHEDULER_NAME, PodOptIn.TAINT_KEY);
        }
    }
}
