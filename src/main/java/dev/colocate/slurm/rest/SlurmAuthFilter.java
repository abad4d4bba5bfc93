package dev.colocate.slurm.rest;

import dev.colocate.slurm.SlurmTokens;
import io.quarkus.arc.Unremovable;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.ws.rs.client.ClientRequestContext;
import jakarta.ws.rs.client.ClientRequestFilter;

/**
 * Adds the user-name and token headers that slurmrestd's rest_auth/jwt reads. The configured client takes this bean by
 * config ({@code quarkus.rest-client.slurmrestd.providers}), which Arc cannot see: hence unremovable.
 */
@ApplicationScoped
@Unremovable
public class SlurmAuthFilter implements ClientRequestFilter {

    static final String USER_HEADER = "X-SLURM-USER-NAME";
    static final String TOKEN_HEADER = "X-SLURM-USER-TOKEN";

    private final SlurmTokens tokens;

    @Inject
    public SlurmAuthFilter(SlurmTokens tokens) {
        this.tokens = tokens;
    }

    @Override
    public void filter(ClientRequestContext request) {
        request.getHeaders().putSingle(USER_HEADER, tokens.user());
        request.getHeaders().putSingle(TOKEN_HEADER, tokens.token());
    }
}
