package dev.colocate.slurm.rest;

import com.fasterxml.jackson.databind.JsonNode;
import dev.colocate.slurm.rest.v0038.Dialect0038;
import dev.colocate.slurm.rest.v004x.Dialect004x;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The API versions colocate speaks, and the choice of one from what a slurmrestd offers. */
public final class Dialects {

    /** Highest first: the order of preference. */
    static final List<String> SUPPORTED = List.of("v0.0.45", "v0.0.44", "v0.0.43", "v0.0.42", "v0.0.41", "v0.0.40",
            "v0.0.38");

    private static final Pattern VERSIONED_PATH = Pattern.compile("^/slurm/(v\\d+\\.\\d+\\.\\d+)/");

    private Dialects() {
    }

    /** The dialect for one version; an IllegalArgumentException for a version colocate does not speak. */
    public static Dialect of(String version) {
        return switch (version) {
            case "v0.0.38" -> new Dialect0038();
            // Slurm 26.05's v0.0.43-45 keep v0.0.42's node, job and error fields and its job/allocate body (recorded in
            // src/test/slurm/slurm-26.05/recorded); errors come with HTTP 422 instead of 500, and are read from the body.
            case "v0.0.40", "v0.0.41", "v0.0.42", "v0.0.43", "v0.0.44", "v0.0.45" -> new Dialect004x(version);
            default -> throw new IllegalArgumentException("slurmrestd API " + version + " is not supported; colocate "
                    + "speaks " + String.join(", ", SUPPORTED));
        };
    }

    /** The versions whose Slurm paths an OpenAPI v3 document lists, in document order. */
    public static List<String> offered(JsonNode openapi) {
        List<String> versions = new ArrayList<>();
        for (Iterator<String> it = openapi.path("paths").fieldNames(); it.hasNext(); ) {
            Matcher m = VERSIONED_PATH.matcher(it.next());
            if (m.find() && !versions.contains(m.group(1))) {
                versions.add(m.group(1));
            }
        }
        return versions;
    }

    /**
     * The version to speak: the forced one when configured (it must be offered), otherwise the highest version both
     * sides know.
     */
    public static Dialect choose(JsonNode openapi, Optional<String> forced) {
        List<String> offered = offered(openapi);
        if (forced.isPresent()) {
            String v = forced.get();
            if (!offered.contains(v)) {
                throw new IllegalArgumentException("colocate.slurm.api-version=" + v + " but slurmrestd offers only "
                        + offered);
            }
            return of(v);
        }
        return SUPPORTED.stream().filter(offered::contains).findFirst().map(Dialects::of)
                .orElseThrow(() -> new IllegalArgumentException("slurmrestd offers " + offered + "; colocate speaks "
                        + String.join(", ", SUPPORTED)));
    }
}
