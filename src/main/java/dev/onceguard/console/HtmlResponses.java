package dev.onceguard.console;

import io.quarkus.qute.TemplateInstance;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

/** A console page answered with a status other than 200, such as a 400 with the form and a notice, or a 404. */
final class HtmlResponses {

    private HtmlResponses() {
    }

    static Response page(int status, TemplateInstance page) {
        return Response.status(status).type(MediaType.TEXT_HTML_TYPE.withCharset("UTF-8")).entity(page.render()).build();
    }
}
