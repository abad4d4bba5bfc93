package dev.colocate.slurm.rest;

import io.smallrye.mutiny.Uni;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import org.eclipse.microprofile.rest.client.inject.RegisterRestClient;

/**
 * slurmrestd's endpoints, for the API version given per call. Every method returns the raw response: Slurm reports
 * errors in the body's {@code errors[]}, often with HTTP 500, and some answers (401) are plain text, so
 * {@link RestSlurmControl} reads the body as text whatever the status (the default exception mapper is off for this
 * client). The credentials filter is registered per client: by config for the configured slurmrestd, by
 * {@link RestSlurmControl#at} for a SlurmCluster's.
 */
@RegisterRestClient(configKey = "slurmrestd")
@Produces(MediaType.APPLICATION_JSON)
@Consumes(MediaType.APPLICATION_JSON)
public interface SlurmRestApi {

    /** The OpenAPI document, which lists the API versions this slurmrestd serves. */
    @GET
    @Path("/openapi/v3")
    Uni<Response> openapi();

    @GET
    @Path("/slurm/{version}/ping")
    Uni<Response> ping(@PathParam("version") String version);

    @GET
    @Path("/slurm/{version}/diag")
    Uni<Response> diag(@PathParam("version") String version);

    @GET
    @Path("/slurm/{version}/nodes")
    Uni<Response> nodes(@PathParam("version") String version);

    @POST
    @Path("/slurm/{version}/node/{name}")
    Uni<Response> updateNode(@PathParam("version") String version, @PathParam("name") String name,
            Object update);

    @GET
    @Path("/slurm/{version}/jobs")
    Uni<Response> jobs(@PathParam("version") String version);

    @GET
    @Path("/slurm/{version}/jobs")
    Uni<Response> jobsSince(@PathParam("version") String version,
            @jakarta.ws.rs.QueryParam("update_time") long updateTime);

    @POST
    @Path("/slurm/{version}/job/submit")
    Uni<Response> submit(@PathParam("version") String version, Object request);

    @POST
    @Path("/slurm/{version}/job/allocate")
    Uni<Response> allocate(@PathParam("version") String version, Object request);

    @GET
    @Path("/slurm/{version}/partitions")
    Uni<Response> partitions(@PathParam("version") String version);

    @POST
    @Path("/slurm/{version}/job/{id}")
    Uni<Response> updateJob(@PathParam("version") String version, @PathParam("id") long id,
            Object update);

    @DELETE
    @Path("/slurm/{version}/job/{id}")
    Uni<Response> cancel(@PathParam("version") String version, @PathParam("id") long id);
}
