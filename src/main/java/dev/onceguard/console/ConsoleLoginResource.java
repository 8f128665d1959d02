package dev.onceguard.console;

import io.quarkus.qute.CheckedTemplate;
import io.quarkus.qute.TemplateInstance;
import jakarta.ws.rs.CookieParam;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.NewCookie;
import jakarta.ws.rs.core.Response;
import org.eclipse.microprofile.config.inject.ConfigProperty;

import java.net.URI;
import io.quarkus.runtime.annotations.RegisterForReflection;

/**
 * The login form (posted to Quarkus' form authentication at {@code /j_security_check}) and logout, which ends the
 * session on the server ({@link ConsoleSessions}) as well as deleting its cookies.
 */
@RegisterForReflection
@Path("/console")
@Produces(MediaType.TEXT_HTML)
public class ConsoleLoginResource {

    @CheckedTemplate
    static class Templates {
        static native TemplateInstance login(boolean failed);
    }

    private final String sessionCookie;
    private final ConsoleSessions sessions;

    ConsoleLoginResource(@ConfigProperty(name = "quarkus.http.auth.form.cookie-name") String sessionCookie,
                         ConsoleSessions sessions) {
        this.sessionCookie = sessionCookie;
        this.sessions = sessions;
    }

    @GET
    @Path("/login")
    public TemplateInstance login(@QueryParam("error") boolean failed) {
        return Templates.login(failed);
    }

    @POST
    @Path("/logout")
    public Response logout(@CookieParam(ConsoleSessionCheck.SESSION_COOKIE) String sessionToken) {
        if (sessionToken != null) {
            sessions.end(sessionToken);
        }
        NewCookie expired = new NewCookie.Builder(sessionCookie).path("/").value("").maxAge(0).httpOnly(true).build();
        NewCookie token = new NewCookie.Builder(ConsoleSessionCheck.SESSION_COOKIE).path("/").value("").maxAge(0)
                .httpOnly(true).build();
        return Response.seeOther(URI.create("/console/login")).cookie(expired, token).build();
    }
}
