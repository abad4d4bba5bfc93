package dev.colocate.copilot;

import io.fabric8.kubernetes.api.model.Pod;

/** Test access to the ledger's pod requests, for benchmarks outside the package. */
public final class PodRequestsAccess {

    private PodRequestsAccess() {
    }

    public static long bytes(Pod pod) {
        return PodRequests.of(pod).bytes();
    }
}
