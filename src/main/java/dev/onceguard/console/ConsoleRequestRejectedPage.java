package dev.onceguard.console;

import dev.onceguard.platform.RefusalPages;
import dev.onceguard.platform.UnstorableInput;
import io.quarkus.qute.CheckedTemplate;
import io.quarkus.qute.TemplateInstance;
import jakarta.inject.Singleton;
import jakarta.ws.rs.core.Response;
import org.jboss.resteasy.reactive.server.ServerExceptionMapper;

import java.util.Optional;

/**
 * Renders a {@link ConsoleRequestRejected} as a console page with its status, inside the console's layout; input the
 * service refuses at its boundary ({@link UnstorableInput}) gets the same page on console paths.
 */
@Singleton
public class ConsoleRequestRejectedPage implements RefusalPages {

    @CheckedTemplate
    static class Templates {
        static native TemplateInstance rejected(int status, String heading, String message);
    }

    @ServerExceptionMapper
    Response rejected(ConsoleRequestRejected rejection) {
        return HtmlResponses.page(rejection.status(),
                Templates.rejected(rejection.status(), rejection.heading(), rejection.getMessage()));
    }

    @Override
    public Optional<Response> page(String path, UnstorableInput input) {
        if (!path.equals("/console") && !path.startsWith("/console/")) {
            return Optional.empty();
        }
        ConsoleRequestRejected rejection = input.source() == UnstorableInput.Source.PATH
                ? ConsoleRequestRejected.notFound("There is nothing with that id.")
                : ConsoleRequestRejected.badRequest("The " + (input.source() == UnstorableInput.Source.QUERY
                ? "filter " : "header ") + input.name() + " " + input.reason() + ".");
        return Optional.of(rejected(rejection));
    }
}
