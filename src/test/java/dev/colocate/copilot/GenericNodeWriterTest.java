package dev.colocate.copilot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.colocate.UnreachableSlurm;
import dev.colocate.api.GenericNode;
import dev.colocate.api.Reservation;
import dev.colocate.testing.Crds;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.quarkus.test.kubernetes.client.WithKubernetesTestServer;
import jakarta.inject.Inject;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A reservation write computed from a stale GenericNode is refused with 409, never written over a newer one. */
@QuarkusTest
@WithKubernetesTestServer(crud = true, setup = Crds.Setup.class)
@QuarkusTestResource(value = UnreachableSlurm.class, restrictToAnnotatedClass = true)
// the copilot stays off: its sync would delete a GenericNode that no shared node backs, or write it meanwhile
@TestProfile(GenericNodeWriterTest.CopilotOff.class)
class GenericNodeWriterTest {

    public static class CopilotOff implements io.quarkus.test.junit.QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("colocate.copilot.enabled", "false");
        }
    }

    @Inject
    GenericNodeWriter writer;

    private static Reservation reservation(String pod) {
        Reservation r = new Reservation();
        r.setNamespace("default");
        r.setPodName(pod);
        r.setPodUid(pod + "-uid");
        r.setRequests(new java.util.TreeMap<>(Map.of("cpu", new Quantity("1"))));
        r.setExpiresAt("2026-12-04T10:00:00Z");
        return r;
    }

    @Test
    void aStaleReservationWriteIsAConflictAndAFreshOneLands() {
        GenericNode created = writer.create(new SharedNode("writer-node", "node1", "external"));
        GenericNode first = writer.patchReservations(created, List.of(reservation("a")));

        // another bind wrote meanwhile: one that read the node before must not overwrite it
        GenericNode newer = writer.patchReservations(first, List.of(reservation("a"), reservation("c")));
        KubernetesClientException stale = catchThrowableOfType(KubernetesClientException.class,
                () -> writer.patchReservations(first, List.of(reservation("a"), reservation("b"))));
        assertThat(stale).as("a write from a stale read").isNotNull();
        assertThat(stale.getCode()).isEqualTo(409);
        assertThat(writer.fetch("writer-node").getStatus().getReservations())
                .extracting(Reservation::getPodName).containsExactly("a", "c");

        writer.patchReservations(newer, List.of(reservation("a"), reservation("c"), reservation("b")));
        assertThat(writer.fetch("writer-node").getStatus().getReservations())
                .extracting(Reservation::getPodName).containsExactly("a", "c", "b");
    }
}
