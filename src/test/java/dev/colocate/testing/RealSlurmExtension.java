package dev.colocate.testing;

import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/** Starts the {@link SlurmHarness} a {@link RealSlurm} class asks for, and stops it once the whole run is over. */
public class RealSlurmExtension implements BeforeAllCallback, ParameterResolver {

    private static final ExtensionContext.Namespace NS = ExtensionContext.Namespace.create(RealSlurmExtension.class);

    @Override
    public void beforeAll(ExtensionContext context) {
        RealSlurm spec = context.getRequiredTestClass().getAnnotation(RealSlurm.class);
        SlurmHarness harness = SlurmHarness.ensure(
                new SlurmHarness.Shape(spec.nodes(), spec.cpus(), spec.memoryMb(), spec.jobSubmitLua()));
        // the root store closes when the whole test run ends: one cluster serves every class that fits its shape
        context.getRoot().getStore(NS).getOrComputeIfAbsent("shutdown", k -> new Shutdown(), Shutdown.class);
        context.getStore(NS).put("harness", harness);
    }

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext extension) {
        return parameter.getParameter().getType() == SlurmHarness.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext extension) {
        return extension.getStore(NS).get("harness", SlurmHarness.class);
    }

    /** Closed with the root store (JUnit closes AutoCloseable values; its CloseableResource is deprecated). */
    private static final class Shutdown implements AutoCloseable {
        @Override
        public void close() {
            SlurmHarness.shutdown();
        }
    }
}
