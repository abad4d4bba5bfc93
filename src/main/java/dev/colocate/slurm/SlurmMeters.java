package dev.colocate.slurm;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;

/** {@code colocate_slurm_requests_seconds{operation,outcome}}: every call colocate makes to Slurm. */
@ApplicationScoped
public class SlurmMeters {

    static final String REQUESTS = "colocate.slurm.requests";

    private final MeterRegistry registry;

    public SlurmMeters(MeterRegistry registry) {
        this.registry = registry;
    }

    /**
     * Times the call from subscription to item or failure, tagging the outcome. The operation tag is the method name
     * only ({@code setKubernetesShare(node7)} counts as {@code setKubernetesShare}), so the series do not grow with
     * the number of nodes or jobs.
     */
    public <T> Uni<T> timed(String operation, Uni<T> call) {
        String method = operation.replaceFirst("\\(.*$", "");
        return Uni.createFrom().deferred(() -> {
            Timer.Sample sample = Timer.start(registry);
            return call.onItemOrFailure().invoke((item, failure) -> sample.stop(Timer.builder(REQUESTS)
                    .description("Calls to Slurm, by operation and outcome")
                    .tag("operation", method)
                    .tag("outcome", outcome(failure))
                    .register(registry)));
        });
    }

    static String outcome(Throwable failure) {
        if (failure == null) {
            return "success";
        } else if (failure instanceof SlurmAuthException) {
            return "auth_error";
        } else if (failure instanceof SlurmUnavailableException) {
            return "unavailable";
        } else if (failure instanceof SlurmNotFoundException) {
            return "not_found";
        } else if (failure instanceof SlurmException) {
            return "slurm_error";
        }
        return "client_error";
    }
}
