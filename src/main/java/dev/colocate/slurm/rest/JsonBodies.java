package dev.colocate.slurm.rest;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;

/** Shared reading of slurmrestd bodies. */
public final class JsonBodies {

    static final ObjectMapper MAPPER = new ObjectMapper().configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES,
            false);

    private JsonBodies() {
    }

    /** Binds a body to one of the versioned records; a body of the wrong shape is a clear error. */
    public static <T> T read(JsonNode body, Class<T> type) {
        try {
            return MAPPER.treeToValue(body, type);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("slurmrestd answered a " + type.getSimpleName() + " that colocate cannot "
                    + "read: " + e.getOriginalMessage(), e);
        }
    }

    /** The JSON of a body, or null when it is empty or not JSON (slurmrestd answers 401 in plain text). */
    public static JsonNode parse(String text) {
        if (text == null || text.isBlank()) {
            return null;
        }
        try {
            JsonNode node = MAPPER.readTree(text);
            return node != null && node.isObject() ? node : null;
        } catch (JsonProcessingException e) {
            return null;
        }
    }

    public static <T> List<T> orEmpty(List<T> list) {
        return list == null ? List.of() : list;
    }

    /** Upper-case state words, e.g. {@code idle} and {@code [DRAIN]} become {@code IDLE, DRAIN}. */
    public static Set<String> states(String state, List<String> flags) {
        Set<String> all = new TreeSet<>();
        if (state != null && !state.isBlank()) {
            all.add(state.toUpperCase(Locale.ROOT));
        }
        orEmpty(flags).forEach(f -> all.add(f.toUpperCase(Locale.ROOT)));
        return all;
    }

    public static int orZero(Integer value) {
        return value == null ? 0 : value;
    }

    public static long orZero(Long value) {
        return value == null ? 0 : value;
    }

    /** A job's TRES: what it holds (alloc) once running, what it asks (req) while pending. */
    public static String tres(String alloc, String req) {
        return alloc != null && !alloc.isBlank() ? alloc : req;
    }
}
