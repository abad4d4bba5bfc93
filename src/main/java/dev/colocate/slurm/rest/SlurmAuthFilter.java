package dev.colocate.slurm.rest;

import dev.colocate.slurm.SlurmTokens;
import jakarta.ws.rs.client.ClientRequestContext;
import jakarta.ws.rs.client.ClientRequestFilter;

/** Adds the user-name and token headers that slurmrestd's rest_auth/jwt reads; RestSlurmControl registers one. */
public class SlurmAuthFilter implements ClientRequestFilter {

    static final String USER_HEADER = "X-SLURM-USER-NAME";
    static final String TOKEN_HEADER = "X-SLURM-USER-TOKEN";

    private final SlurmTokens tokens;

    public SlurmAuthFilter(SlurmTokens tokens) {
        this.tokens = tokens;
    }

    @Override
    public void filter(ClientRequestContext request) {
        request.getHeaders().putSingle(USER_HEADER, tokens.user());
        request.getHeaders().putSingle(TOKEN_HEADER, tokens.token());
    }
}
