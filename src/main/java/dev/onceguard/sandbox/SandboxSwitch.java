package dev.onceguard.sandbox;

import dev.onceguard.platform.Problem;
import dev.onceguard.platform.ProblemMappers;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.core.Response;
import org.jboss.resteasy.reactive.server.ServerRequestFilter;

/** While {@code onceguard.sandbox.enabled} is false, every path under {@code /sandbox} answers 404. */
public class SandboxSwitch {

    private final SandboxConfig config;

    public SandboxSwitch(SandboxConfig config) {
        this.config = config;
    }

    @ServerRequestFilter(preMatching = true)
    public Response hideWhenDisabled(ContainerRequestContext request) {
        String path = request.getUriInfo().getPath();
        if (config.enabled() || !(path.equals("/sandbox") || path.startsWith("/sandbox/"))) {
            return null;
        }
        return ProblemMappers.respond(Problem.of(404, "NOT_FOUND", "Not found", "No such resource."));
    }
}
