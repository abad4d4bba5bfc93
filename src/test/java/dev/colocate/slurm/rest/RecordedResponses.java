package dev.colocate.slurm.rest;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;

/**
 * Real slurmrestd responses, recorded from Slurm 22.05.8 (v0.0.38) and 24.11.5 (v0.0.42) on loopback; copies of the
 * ones in shared/reference, kept with the tests so they run on any machine.
 */
final class RecordedResponses {

    private RecordedResponses() {
    }

    static JsonNode load(String path) {
        try (InputStream in = RecordedResponses.class.getResourceAsStream("/slurm/" + path)) {
            if (in == null) {
                throw new IllegalArgumentException("no recorded response " + path);
            }
            return new ObjectMapper().readTree(in);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
