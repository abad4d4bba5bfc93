package dev.colocate.slurm;

import java.util.Optional;

/**
 * A batch job to submit. Memory is in MB, as Slurm counts it.
 *
 * @param node       pin the job to this node, when present
 * @param gres       extra GRES request, e.g. {@code k8scpu:3,k8smemory:4000}; job_submit.lua adds it when absent
 */
public record JobSpec(String name, String script, int cpusPerTask, long memoryMb, Optional<String> node,
        Optional<String> gres) {

    /** A job that runs {@code sleep seconds} with the given size. */
    public static JobSpec sleep(String name, long seconds, int cpus, long memoryMb) {
        return new JobSpec(name, "#!/bin/sh\nexec sleep " + seconds + "\n", cpus, memoryMb, Optional.empty(),
                Optional.empty());
    }

    public JobSpec on(String nodeName) {
        return new JobSpec(name, script, cpusPerTask, memoryMb, Optional.of(nodeName), gres);
    }

    public JobSpec withGres(String request) {
        return new JobSpec(name, script, cpusPerTask, memoryMb, node, Optional.of(request));
    }
}
