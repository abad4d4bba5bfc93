package dev.colocate.slurm.rest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Optional;
import org.junit.jupiter.api.Test;

class DialectsTest {

    @Test
    void slurm2205OffersV0038AndCannotWriteNodes() {
        var openapi = RecordedResponses.load("v0038/openapi-paths.json");

        assertThat(Dialects.offered(openapi)).containsExactly("v0.0.38", "v0.0.37", "v0.0.36");
        Dialect chosen = Dialects.choose(openapi, Optional.empty());
        assertThat(chosen.version()).isEqualTo("v0.0.38");
        assertThat(chosen.canWriteNodes()).isFalse();
    }

    @Test
    void slurm2411GetsTheHighestVersionWhichWritesNodes() {
        var openapi = RecordedResponses.load("v0042/openapi-paths.json");

        assertThat(Dialects.offered(openapi)).contains("v0.0.40", "v0.0.41", "v0.0.42");
        Dialect chosen = Dialects.choose(openapi, Optional.empty());
        assertThat(chosen.version()).isEqualTo("v0.0.42");
        assertThat(chosen.canWriteNodes()).isTrue();
    }

    @Test
    void slurm2605GetsItsHighestVersion() {
        var openapi = RecordedResponses.load("v0045/openapi-paths.json");
        assertThat(Dialects.offered(openapi)).containsExactlyInAnyOrder("v0.0.42", "v0.0.43", "v0.0.44", "v0.0.45");
        assertThat(Dialects.choose(openapi, Optional.empty()).version()).isEqualTo("v0.0.45");
    }

    @Test
    void aForcedVersionIsUsedWhenOffered() {
        var openapi = RecordedResponses.load("v0042/openapi-paths.json");

        assertThat(Dialects.choose(openapi, Optional.of("v0.0.40")).version()).isEqualTo("v0.0.40");
    }

    @Test
    void aForcedVersionTheServerLacksIsAClearError() {
        var openapi = RecordedResponses.load("v0038/openapi-paths.json");

        assertThatThrownBy(() -> Dialects.choose(openapi, Optional.of("v0.0.42")))
                .hasMessageContaining("colocate.slurm.api-version=v0.0.42")
                .hasMessageContaining("v0.0.38");
    }

    @Test
    void anUnsupportedVersionNamesTheSupportedOnes() {
        assertThatThrownBy(() -> Dialects.of("v0.0.39")).hasMessageContaining("v0.0.42, v0.0.41, v0.0.40, v0.0.38");
    }
}
