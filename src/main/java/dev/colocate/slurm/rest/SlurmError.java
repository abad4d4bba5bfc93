package dev.colocate.slurm.rest;

import com.fasterxml.jackson.annotation.JsonAlias;
import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.quarkus.runtime.annotations.RegisterForReflection;

/**
 * One entry of a slurmrestd response's {@code errors[]}. Slurm 22.05 spells the number {@code errno} on some endpoints
 * (nodes) and {@code error_number} on others (ping); v0.0.40+ adds a description.
 */
@RegisterForReflection
@JsonIgnoreProperties(ignoreUnknown = true)
public record SlurmError(String error, @JsonProperty("error_number") @JsonAlias("errno") Integer errorNumber, String description,
        String source) {

    /** The most telling text Slurm gave. */
    public String message() {
        if (description != null && !description.isBlank()) {
            return error == null || error.isBlank() || description.contains(error) ? description
                    : description + ": " + error;
        }
        return error == null || error.isBlank() ? "no message" : error;
    }

    public int number() {
        return errorNumber == null ? 0 : errorNumber;
    }
}
