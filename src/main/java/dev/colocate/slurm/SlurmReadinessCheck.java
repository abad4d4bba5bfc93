package dev.colocate.slurm;

import com.fasterxml.jackson.databind.JsonNode;
import dev.colocate.config.SlurmConfig;
import io.smallrye.health.api.AsyncHealthCheck;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.ws.rs.WebApplicationException;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.HealthCheckResponseBuilder;
import org.eclipse.microprofile.health.Readiness;
import org.eclipse.microprofile.rest.client.inject.RestClient;

/**
 * Ready only while slurmrestd answers a ping: without Slurm the copilot cannot keep the GRES counts true, so it must
 * not receive scheduler traffic.
 */
@Readiness
@ApplicationScoped
public class SlurmReadinessCheck implements AsyncHealthCheck {

    static final String NAME = "slurm";

    @Inject
    @RestClient
    SlurmRestApi api;

    @Inject
    SlurmConfig config;

    @Override
    public Uni<HealthCheckResponse> call() {
        return api.ping(config.apiVersion())
                .ifNoItem().after(config.requestTimeout()).fail()
                .map(this::fromPing)
                .onFailure().recoverWithItem(this::fromFailure);
    }

    private HealthCheckResponse fromPing(JsonNode body) {
        HealthCheckResponseBuilder b = HealthCheckResponse.named(NAME).withData("url", config.restUrl().toString());
        JsonNode errors = body.path("errors");
        if (errors.isArray() && !errors.isEmpty()) {
            return b.down().withData("error", errors.get(0).path("error").asText(errors.get(0).toString())).build();
        }
        JsonNode release = body.path("meta").path("Slurm").path("release");
        if (!release.isMissingNode()) {
            b.withData("release", release.asText());
        }
        return b.up().build();
    }

    private HealthCheckResponse fromFailure(Throwable failure) {
        String reason = failure instanceof WebApplicationException w
                ? "slurmrestd answered HTTP " + w.getResponse().getStatus()
                : failure.getClass().getSimpleName() + (failure.getMessage() == null ? "" : ": " + failure.getMessage());
        return HealthCheckResponse.named(NAME).down()
                .withData("url", config.restUrl().toString())
                .withData("error", reason)
                .build();
    }
}
