package dev.colocate.slurm;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.EnumSet;
import java.util.Set;

/**
 * Secrets colocate reads from files (Slurm's JWT key, a token) must be readable by their owner alone: a key others on
 * the host or in the pod's group can read is refused, with what to do, rather than used. In Kubernetes that is the
 * Secret volume's {@code defaultMode: 0400}.
 */
final class OwnerOnlyFiles {

    private static final Set<PosixFilePermission> OTHERS = EnumSet.of(PosixFilePermission.GROUP_READ,
            PosixFilePermission.GROUP_WRITE, PosixFilePermission.GROUP_EXECUTE, PosixFilePermission.OTHERS_READ,
            PosixFilePermission.OTHERS_WRITE, PosixFilePermission.OTHERS_EXECUTE);

    private OwnerOnlyFiles() {
    }

    /** Throws {@link SlurmAuthException} naming the file and its mode when others may read it. */
    static void check(Path file, String what) {
        Set<PosixFilePermission> permissions;
        try {
            permissions = Files.getPosixFilePermissions(file);
        } catch (UnsupportedOperationException e) {
            return; // no POSIX permissions to check here
        } catch (IOException e) {
            throw new SlurmAuthException("cannot read " + what + " " + file + ": " + e.getClass().getSimpleName(), e);
        }
        Set<PosixFilePermission> loose = EnumSet.noneOf(PosixFilePermission.class);
        loose.addAll(permissions);
        loose.retainAll(OTHERS);
        if (!loose.isEmpty()) {
            throw new SlurmAuthException(what + " " + file + " is readable beyond its owner ("
                    + PosixFilePermissions.toString(permissions) + "): make it owner-only (chmod 600, or "
                    + "defaultMode: 0400 on the Secret volume)", null);
        }
    }
}
