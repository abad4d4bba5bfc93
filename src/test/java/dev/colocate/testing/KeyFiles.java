package dev.colocate.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

/** Key and token files as a user must hand them to colocate: readable by their owner only. */
public final class KeyFiles {

    private KeyFiles() {
    }

    /** Makes {@code file} owner-only (0600) and returns it. */
    public static Path ownerOnly(Path file) {
        try {
            return Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
