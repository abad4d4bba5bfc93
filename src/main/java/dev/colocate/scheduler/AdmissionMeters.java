package dev.colocate.scheduler;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.function.Supplier;

/**
 * colocate_admission_seconds{verb,outcome}; colocate_admission_refused_total{reason}, pods a bind refused; and
 * colocate_filter_rejected_nodes_total{reason}, candidate nodes filter took out. One meter counts one kind of thing.
 */
@ApplicationScoped
public class AdmissionMeters {

    private final MeterRegistry registry;

    public AdmissionMeters(MeterRegistry registry) {
        this.registry = registry;
    }

    /** Times one extender call; the outcome is read from its result. */
    public <T> T timed(String verb, Supplier<T> call, java.util.function.Function<T, String> outcome) {
        Timer.Sample sample = Timer.start(registry);
        String result = "error";
        try {
            T value = call.get();
            result = outcome.apply(value);
            return value;
        } finally {
            sample.stop(Timer.builder("colocate.admission").description("Extender calls, by verb and outcome")
                    .tag("verb", verb).tag("outcome", result).publishPercentiles(0.5, 0.99).register(registry));
        }
    }

    /** Counts one pod a bind refused, by why. */
    public void refused(Refusal reason) {
        Counter.builder("colocate.admission.refused").description("Pods the extender refused, by reason")
                .tag("reason", reason.tag).register(registry).increment();
    }

    /** Counts candidate nodes filter took out: {@code no_fit}, or {@code unjudged} (colocate cannot judge them). */
    public void rejectedNodes(String reason, int count) {
        if (count > 0) {
            Counter.builder("colocate.filter.rejected.nodes")
                    .description("Candidate nodes the extender's filter took out, by reason")
                    .tag("reason", reason).register(registry).increment(count);
        }
    }

    /** Why a bind refused a pod. */
    public enum Refusal {
        NO_FIT("no_fit"), SLURM_REFUSED("slurm_refused"), SLURM_UNREACHABLE("slurm_unreachable"),
        SLURM_RACE("slurm_race"),
        POD_MISSING("pod_missing"), NOT_READY("not_ready"), BINDING_FAILED("binding_failed"), NODE_BUSY("node_busy"),
        UNKNOWN_NODE("unknown_node"), BINDING_UNKNOWN("binding_unknown");

        final String tag;

        Refusal(String tag) {
            this.tag = tag;
        }
    }
}
