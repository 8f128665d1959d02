package dev.onceguard.console;

import dev.onceguard.platform.RefusalPages;
import dev.onceguard.platform.UnstorableInput;
import io.quarkus.qute.CheckedTemplate;
import io.quarkus.qute.TemplateInstance;
import jakarta.inject.Singleton;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerResponseContext;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import org.jboss.resteasy.reactive.server.ServerExceptionMapper;
import org.jboss.resteasy.reactive.server.ServerResponseFilter;

import java.util.Optional;

/**
 * Renders a {@link ConsoleRequestRejected} as a console page with its status, inside the console's layout; input the
 * service refuses at its boundary ({@link UnstorableInput}) gets the same page on console paths, and so does a form the
 * CSRF extension refused (it answers a bare 400).
 */
@Singleton
public class ConsoleRequestRejectedPage implements RefusalPages {

    @CheckedTemplate
    static class Templates {
        static native TemplateInstance rejected(int status, String heading, String message);

        /** Without the console's layout: its sign-out form needs the CSRF token the refused request did not get. */
        static native TemplateInstance formNotAccepted();
    }

    @ServerExceptionMapper
    Response rejected(ConsoleRequestRejected rejection) {
        return HtmlResponses.page(rejection.status(),
                Templates.rejected(rejection.status(), rejection.heading(), rejection.getMessage()));
    }

    @ServerResponseFilter
    public void explainRefusedForm(ContainerRequestContext request, ContainerResponseContext response) {
        if (response.getStatus() == 400 && !response.hasEntity() && isConsole(request.getUriInfo().getPath())) {
            response.setEntity(Templates.formNotAccepted().render(), null, MediaType.TEXT_HTML_TYPE.withCharset("UTF-8"));
        }
    }

    private static boolean isConsole(String path) {
        return path.equals("/console") || path.startsWith("/console/");
    }

    @Override
    public Optional<Response> page(String path, UnstorableInput input) {
        if (!isConsole(path)) {
            return Optional.empty();
        }
        ConsoleRequestRejected rejection = input.source() == UnstorableInput.Source.PATH
                ? ConsoleRequestRejected.notFound("There is nothing with that id.")
                : ConsoleRequestRejected.badRequest("The filter " + input.name() + " " + input.reason() + ".");
        return Optional.of(rejected(rejection));
    }
}
