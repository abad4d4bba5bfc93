package dev.colocate.metrics;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import java.util.function.ToDoubleFunction;
import java.util.function.UnaryOperator;

/**
 * Gauges bound to this process's state. Micrometer hands back an existing gauge of the same name and tags, still
 * reading the state it was built on; Quarkus's registry (Micrometer's global one) outlives an application that is
 * restarted in the same JVM, as tests and dev mode do, so a plain register would keep showing the previous
 * application's values (or NaN once they are collected). Replacing the meter makes the gauge read ours, always.
 */
public final class Gauges {

    private Gauges() {
    }

    /**
     * Registers a gauge of {@code name} and exactly {@code tags} that reads {@code state}, replacing any gauge of that
     * id; {@code more} sets the description or unit.
     */
    public static <T> Gauge register(MeterRegistry registry, String name, Tags tags, T state,
            ToDoubleFunction<T> value, UnaryOperator<Gauge.Builder<T>> more) {
        registry.find(name).tags(tags).gauges().stream()
                .filter(g -> Tags.of(g.getId().getTags()).equals(tags))
                .forEach(registry::remove);
        return more.apply(Gauge.builder(name, state, value).tags(tags)).register(registry);
    }
}
