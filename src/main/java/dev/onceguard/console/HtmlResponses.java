package dev.onceguard.console;

import io.quarkus.qute.TemplateInstance;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

/**
 * A console page answered with a status of its own: the operations list's 400 with the form and what was wrong, or
 * the 400/404 page of a {@link ConsoleRequestRejected}.
 */
final class HtmlResponses {

    private HtmlResponses() {
    }

    static Response page(int status, TemplateInstance page) {
        return Response.status(status).type(MediaType.TEXT_HTML_TYPE.withCharset("UTF-8")).entity(page.render()).build();
    }
}
