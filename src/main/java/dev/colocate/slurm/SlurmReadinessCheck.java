package dev.colocate.slurm;

import dev.colocate.config.SlurmConfig;
import dev.colocate.slurm.rest.RestSlurmControl;
import io.smallrye.health.api.AsyncHealthCheck;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;

/**
 * Ready only while slurmrestd answers a ping: without Slurm the copilot cannot keep the GRES counts true, so it must
 * not receive scheduler traffic.
 */
@Readiness
@ApplicationScoped
public class SlurmReadinessCheck implements AsyncHealthCheck {

    static final String NAME = "slurm";

    @Inject
    RestSlurmControl slurm;

    @Inject
    SlurmConfig config;

    @Override
    public Uni<HealthCheckResponse> call() {
        if (!config.enabled()) {
            return Uni.createFrom().item(HealthCheckResponse.named(NAME).up()
                    .withData("configuredSlurm", "off (colocate.slurm.enabled=false)").build());
        }
        return slurm.ping()
                .map(ping -> HealthCheckResponse.named(NAME).status(ping.up())
                        .withData("url", config.restUrl().toString())
                        .withData("release", ping.release())
                        .build())
                .onFailure().recoverWithItem(failure -> HealthCheckResponse.named(NAME).down()
                        .withData("url", config.restUrl().toString())
                        .withData("error", failure.getMessage() == null ? failure.getClass().getSimpleName()
                                : failure.getMessage())
                        .build());
    }
}
