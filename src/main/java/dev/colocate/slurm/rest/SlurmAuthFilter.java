package dev.colocate.slurm.rest;

import dev.colocate.slurm.SlurmTokens;
import io.smallrye.mutiny.infrastructure.Infrastructure;
import io.vertx.core.Context;
import org.jboss.resteasy.reactive.client.spi.ResteasyReactiveClientRequestContext;
import org.jboss.resteasy.reactive.client.spi.ResteasyReactiveClientRequestFilter;

/**
 * Adds the user-name and token headers that slurmrestd's rest_auth/jwt reads; RestSlurmControl registers one.
 *
 * <p>The filter runs on the event loop that sends the request. A token that needs Slurm's key read first (the first
 * one, or the first after Slurm refused one) may read a Secret through the Kubernetes client, whose answer arrives on
 * an event loop too: read there, it blocked the loop until the read timed out and every Slurm call failed. So that
 * read happens on a worker thread, with the request suspended meanwhile.
 */
public class SlurmAuthFilter implements ResteasyReactiveClientRequestFilter {

    static final String USER_HEADER = "X-SLURM-USER-NAME";
    static final String TOKEN_HEADER = "X-SLURM-USER-TOKEN";

    private final SlurmTokens tokens;

    public SlurmAuthFilter(SlurmTokens tokens) {
        this.tokens = tokens;
    }

    @Override
    public void filter(ResteasyReactiveClientRequestContext request) {
        if (!tokens.mayBlock() || !Context.isOnEventLoopThread()) {
            sign(request);
            return;
        }
        request.suspend();
        Infrastructure.getDefaultWorkerPool().execute(() -> {
            try {
                sign(request);
                request.resume();
            } catch (RuntimeException e) {
                request.resume(e);
            }
        });
    }

    private void sign(ResteasyReactiveClientRequestContext request) {
        request.getHeaders().putSingle(USER_HEADER, tokens.user());
        request.getHeaders().putSingle(TOKEN_HEADER, tokens.token());
    }
}
