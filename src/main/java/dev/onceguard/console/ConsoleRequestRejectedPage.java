package dev.onceguard.console;

import io.quarkus.qute.CheckedTemplate;
import io.quarkus.qute.TemplateInstance;
import jakarta.ws.rs.core.Response;
import org.jboss.resteasy.reactive.server.ServerExceptionMapper;

/** Renders a {@link ConsoleRequestRejected} as a console page with its status, inside the console's layout. */
public class ConsoleRequestRejectedPage {

    @CheckedTemplate
    static class Templates {
        static native TemplateInstance rejected(int status, String heading, String message);
    }

    @ServerExceptionMapper
    Response rejected(ConsoleRequestRejected rejection) {
        return HtmlResponses.page(rejection.status(),
                Templates.rejected(rejection.status(), rejection.heading(), rejection.getMessage()));
    }
}
