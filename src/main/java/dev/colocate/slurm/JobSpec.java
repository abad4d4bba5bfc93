package dev.colocate.slurm;

import java.util.Optional;

/**
 * A batch job to submit. Memory is in MB, as Slurm counts it. The job runs in /tmp.
 *
 * @param node   pin the job to this node, when present
 * @param gres   extra GRES request, e.g. {@code k8scpu:3,k8smemory:4000}; job_submit.lua adds it when absent
 * @param output where the job's stdout and stderr go; /dev/null by default, because Slurm's default
 *               /tmp/slurm-%j.out collides with files of earlier clusters whose job ids started at 1 too, and a
 *               sticky /tmp refuses to open another user's file, which fails the job at launch
 */
public record JobSpec(String name, String script, int cpusPerTask, long memoryMb, Optional<String> node,
        Optional<String> gres, String output) {

    public static final String WORK_DIR = "/tmp";

    /** A job that runs {@code sleep seconds} with the given size. */
    public static JobSpec sleep(String name, long seconds, int cpus, long memoryMb) {
        return new JobSpec(name, "#!/bin/sh\nexec sleep " + seconds + "\n", cpus, memoryMb, Optional.empty(),
                Optional.empty(), "/dev/null");
    }

    public JobSpec on(String nodeName) {
        return new JobSpec(name, script, cpusPerTask, memoryMb, Optional.of(nodeName), gres, output);
    }

    public JobSpec withGres(String request) {
        return new JobSpec(name, script, cpusPerTask, memoryMb, node, Optional.of(request), output);
    }
}
