package dev.colocate.operator;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/** colocate's job_submit.lua (src/main/slurm), which every SlurmCluster's ConfigMap carries. */
final class JobSubmitScript {

    private static final String TEXT = load();

    private JobSubmitScript() {
    }

    static String text() {
        return TEXT;
    }

    private static String load() {
        try (InputStream in = JobSubmitScript.class.getClassLoader().getResourceAsStream("slurm/job_submit.lua")) {
            if (in == null) {
                throw new IllegalStateException("slurm/job_submit.lua is missing from the application");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
