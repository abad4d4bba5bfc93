package dev.colocate.testing;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The test class runs against real Slurm daemons of the given shape, started (as root) before its first test. A
 * {@link SlurmHarness} parameter gives access to them.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Tag("slurm")
@ExtendWith(RealSlurmExtension.class)
public @interface RealSlurm {

    int nodes() default 1;

    int cpus() default 8;

    int memoryMb() default 32000;

    boolean jobSubmitLua() default false;
}
