package dev.colocate.operator.model;

import dev.colocate.api.ComponentSpec;
import dev.colocate.api.SlurmCluster;

/** Which image a component runs, and whether an image names a version. */
public final class Images {

    private Images() {
    }

    /** The component's own image, else the cluster's, else the operator's default. */
    public static String of(SlurmCluster cluster, ComponentSpec component, OperatorDefaults defaults) {
        if (component != null && component.getImage() != null && !component.getImage().isBlank()) {
            return component.getImage();
        }
        String image = cluster.getSpec().getImage();
        return image != null && !image.isBlank() ? image : defaults.slurmImage();
    }

    /** Whether the image has a tag or a digest; a registry's port ({@code host:5000/slurm}) is not a tag. */
    public static boolean pinned(String image) {
        String last = image.substring(image.lastIndexOf('/') + 1);
        return image.contains("@") || (last.contains(":") && !last.endsWith(":"));
    }
}
