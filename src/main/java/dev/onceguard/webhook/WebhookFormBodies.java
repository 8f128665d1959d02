package dev.onceguard.webhook;

import dev.onceguard.platform.Problem;
import dev.onceguard.platform.ProblemMappers;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import org.jboss.resteasy.reactive.server.ServerRequestFilter;

/**
 * A form body sent to {@code /webhooks/{provider}} is refused with 415 before anything reads it. No provider sends
 * one, and without this the console's CSRF check, which guards every form POST, would answer it first with a bare 400.
 */
public class WebhookFormBodies {

    @ServerRequestFilter(preMatching = true)
    public Response refuseForms(ContainerRequestContext request) {
        MediaType type = request.getMediaType();
        if (type == null || !request.getUriInfo().getPath().startsWith("/webhooks/")
                || !(type.isCompatible(MediaType.APPLICATION_FORM_URLENCODED_TYPE)
                || type.isCompatible(MediaType.MULTIPART_FORM_DATA_TYPE))) {
            return null;
        }
        return ProblemMappers.respond(Problem.of(415, "UNSUPPORTED_MEDIA_TYPE", "Unsupported media type",
                "Send the event as the provider sends it, as JSON."));
    }
}
