package dev.colocate.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;

/** The {@code export KEY="value"} lines of an env.sh that a harness's up.sh writes. */
final class EnvFile {

    private EnvFile() {
    }

    /** The exported variables of {@code file}; each of {@code required} must be among them. */
    static Map<String, String> read(Path file, String... required) {
        try {
            Map<String, String> vars = new HashMap<>();
            for (String line : Files.readAllLines(file)) {
                String l = line.strip();
                if (!l.startsWith("export ")) {
                    continue;
                }
                int eq = l.indexOf('=');
                String value = l.substring(eq + 1).replaceAll("\\s+#.*$", "");
                if (value.length() >= 2 && (value.startsWith("\"") || value.startsWith("'"))) {
                    value = value.substring(1, value.length() - 1);
                }
                vars.put(l.substring("export ".length(), eq), value);
            }
            for (String name : required) {
                Objects.requireNonNull(vars.get(name), () -> file + " does not export " + name);
            }
            return vars;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
