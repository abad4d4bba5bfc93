package dev.colocate.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/** A harness's daemon logs, copied to target/ before their directory is wiped, for reading after a failure. */
final class HarnessLogs {

    private HarnessLogs() {
    }

    /** Copies every file of {@code logDir} into {@code target}; logs are a convenience, so nothing here throws. */
    static void keep(Path logDir, Path target) {
        try (var logs = Files.list(logDir)) {
            Files.createDirectories(target);
            for (Path log : logs.toList()) {
                Files.copy(log, target.resolve(log.getFileName()), StandardCopyOption.REPLACE_EXISTING);
            }
        } catch (IOException e) {
            // a missing log directory must not fail the shutdown
        }
    }
}
