package dev.colocate.slurm;

import com.fasterxml.jackson.databind.JsonNode;
import io.smallrye.mutiny.Uni;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import org.eclipse.microprofile.rest.client.annotation.RegisterProvider;
import org.eclipse.microprofile.rest.client.inject.RegisterRestClient;

/** slurmrestd's Slurm endpoints, for the API version given per call. */
@RegisterRestClient(configKey = "slurmrestd")
@RegisterProvider(SlurmAuthFilter.class)
@Path("/slurm/{version}")
@Produces(MediaType.APPLICATION_JSON)
public interface SlurmRestApi {

    /** Whether slurmctld answers, as seen by slurmrestd. */
    @GET
    @Path("/ping")
    Uni<JsonNode> ping(@PathParam("version") String version);
}
