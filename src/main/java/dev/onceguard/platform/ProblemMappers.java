package dev.onceguard.platform;

import io.quarkus.security.AuthenticationFailedException;
import io.quarkus.security.ForbiddenException;
import io.quarkus.security.UnauthorizedException;
import io.quarkus.vertx.http.runtime.security.ChallengeData;
import io.quarkus.vertx.http.runtime.security.HttpAuthenticator;
import io.smallrye.mutiny.Uni;
import io.vertx.core.http.HttpClosedException;
import io.vertx.ext.web.RoutingContext;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.Response;
import org.hibernate.exception.JDBCConnectionException;
import org.jboss.logging.Logger;
import org.jboss.resteasy.reactive.server.ServerExceptionMapper;

import java.nio.channels.ClosedChannelException;
import java.sql.SQLTransientException;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * Turns every failure into {@code application/problem+json}. Bodies never carry stack traces or input secrets.
 */
public class ProblemMappers {

    private static final Logger LOG = Logger.getLogger(ProblemMappers.class);
    /** The status proxies record for a request its client abandoned (nginx's 499 Client Closed Request). */
    static final int CLIENT_CLOSED_REQUEST = 499;
    /** PostgreSQL's answer to a write sent to a standby (or inside a read-only transaction). */
    static final String READ_ONLY_SQL_TRANSACTION = "25006";
    private static final String AGROAL_POOL = "io.agroal.pool.";

    @Inject
    Instance<RefusalPages> refusalPages;

    public static Response respond(Problem problem) {
        return Response.status(problem.status()).type(Problem.MEDIA_TYPE).entity(problem).build();
    }

    @ServerExceptionMapper
    public Response problem(ProblemException e) {
        return respond(e.problem());
    }

    // With proactive authentication off, this mapper also answers the console's failed sign-ins and unauthenticated
    // visits; there the form and Basic mechanisms give the answer (a redirect to the login page, to the error page
    // after a failed sign-in, or a Basic challenge), as they would without this mapper.
    @ServerExceptionMapper({UnauthorizedException.class, AuthenticationFailedException.class})
    public Uni<Response> unauthorized(RoutingContext request) {
        HttpAuthenticator authenticator = request.get(HttpAuthenticator.class.getName());
        if (isConsole(request.normalizedPath()) && authenticator != null) {
            return authenticator.getChallenge(request).map(ProblemMappers::challenge);
        }
        return Uni.createFrom().item(Response.fromResponse(respond(Problem.of(401, "UNAUTHORIZED",
                        "Authentication required", "Send a valid bearer token in the Authorization header.")))
                .header("WWW-Authenticate", "Bearer").build());
    }

    private static boolean isConsole(String path) {
        return path.equals("/console") || path.startsWith("/console/") || path.equals("/j_security_check");
    }

    private static Response challenge(ChallengeData challenge) {
        if (challenge == null) {
            return Response.status(401).build();
        }
        Response.ResponseBuilder response = Response.status(challenge.status);
        challenge.getHeaders().forEach((name, value) -> response.header(name.toString(), value));
        return response.build();
    }

    // The console answers in HTML: it supplies its own page for the same refusal.
    @ServerExceptionMapper
    public Response unstorableInput(UnstorableInput e, RoutingContext request) {
        return refusalPages.stream().flatMap(surface -> surface.page(request.normalizedPath(), e).stream()).findFirst()
                .orElseGet(() -> respond(e.problem()));
    }

    @ServerExceptionMapper
    public Response forbidden(ForbiddenException e) {
        return respond(Problem.of(403, "FORBIDDEN", "Forbidden", "You are not allowed to do this."));
    }

    @Inject
    AllowedMethods allowedMethods;

    @ServerExceptionMapper
    public Response webApplication(WebApplicationException e, RoutingContext request) {
        int status = e.getResponse().getStatus();
        String allowed = allowedMethods.allowFor(request.normalizedPath());
        // A path served by one root resource for some methods and matched by a shorter one for others (GET
        // /api/orders/{id} beside POST /api/orders) makes JAX-RS answer 404 for the other methods; it is a 405.
        if (status == 404 && !allowed.equals("OPTIONS")
                && !List.of(allowed.split(", ")).contains(request.request().method().name())) {
            status = 405;
        }
        return switch (status) {
            case 404 -> respond(Problem.of(404, "NOT_FOUND", "Not found", "No such resource."));
            case 405 -> Response.fromResponse(respond(Problem.of(405, "METHOD_NOT_ALLOWED", "Method not allowed",
                            "This resource does not support that HTTP method; Allow lists those it does.")))
                    .header(HttpHeaders.ALLOW, allowed).build();
            case 406 -> respond(Problem.of(406, "NOT_ACCEPTABLE", "Not acceptable",
                    "This resource answers application/json only."));
            case 415 -> respond(Problem.of(415, "UNSUPPORTED_MEDIA_TYPE", "Unsupported media type",
                    "Send the request body as application/json."));
            case 413 -> respond(RequestLimits.payloadTooLarge());
            default -> status >= 500
                    ? unexpected(e)
                    : respond(Problem.of(status, "BAD_REQUEST", "Bad request", "The request could not be understood."));
        };
    }

    @ServerExceptionMapper({JDBCConnectionException.class, SQLTransientException.class, EarlierCommitLost.class})
    public Response databaseUnavailable(Throwable e) {
        LOG.warnf("database unavailable: %s", e.getMessage());
        return Response.fromResponse(respond(Problem.of(503, "SERVICE_UNAVAILABLE", "Service unavailable",
                "A transient failure stopped the request; nothing was stored. Retry with the same Idempotency-Key.")))
                .header("Retry-After", "1").build();
    }

    @ServerExceptionMapper
    public Response unexpected(Throwable e) {
        if (isTransient(e)) {
            return databaseUnavailable(e);
        }
        Optional<String> dataError = dataErrorState(e);
        if (dataError.isPresent()) {
            LOG.warnf("the database refused a value of the request (SQLState %s): %s", dataError.get(), e.getMessage());
            return respond(Problem.validation("A value of the request cannot be stored (invalid characters, or too "
                    + "long or too large for its field); nothing was stored.", List.of()));
        }
        if (isClientGone(e)) {
            // Nobody reads this answer; its status is what the request metrics record: the client's doing, not a 500.
            LOG.debugf("client closed the connection before the answer: %s", e.getMessage());
            return Response.status(CLIENT_CLOSED_REQUEST).build();
        }
        LOG.error("unexpected failure", e);
        return respond(Problem.of(500, "INTERNAL_ERROR", "Internal error",
                "The request failed unexpectedly and was rolled back; the request id identifies it in the logs."));
    }

    /**
     * The SQLState of a data exception (class 22: invalid byte sequence, untranslatable character, value too long,
     * numeric out of range) that caused {@code e}, on whichever JDBC path: a store wrapping its SQLException, or
     * Hibernate's DataException. The values the service writes are its own or the client's, and the boundary already
     * refuses what it knows the database cannot take, so such a value is the client's input the boundary let through.
     */
    private static Optional<String> dataErrorState(Throwable e) {
        return causes(e).map(t -> t instanceof java.sql.SQLException sql ? sql.getSQLState() : null)
                .filter(state -> state != null && state.startsWith("22")).findFirst();
    }

    private static boolean isClientGone(Throwable e) {
        return causes(e).anyMatch(t -> t instanceof HttpClosedException || t instanceof ClosedChannelException);
    }

    /** {@code e} and its causes, outermost first. */
    private static Stream<Throwable> causes(Throwable e) {
        return Stream.iterate(e, Objects::nonNull, Throwable::getCause);
    }

    /**
     * An SQLException the connection pool raised itself, not the driver: Agroal's acquisition timeouts ("Acquisition
     * timeout while waiting for new connection", "Sorry, acquisition timeout!") carry no SQLState to tell them by.
     */
    private static boolean isPoolRefusal(Throwable t) {
        StackTraceElement[] frames = t.getStackTrace();
        return t instanceof java.sql.SQLException sql && sql.getSQLState() == null && frames.length > 0
                && frames[0].getClassName().startsWith(AGROAL_POOL);
    }

    /**
     * Whether the database being unavailable (or a retryable conflict) caused {@code e}, looking at its causes and
     * at their suppressed exceptions: a commit that failed because the connection was cut is reported by the
     * transaction manager as "could not commit", with PostgreSQL's reason only suppressed. A write refused because the
     * server is read-only (25006) is one too: during a failover a connection can reach a server that is, or has just
     * become, a standby, and the next connection finds the new primary. So is the pool's acquisition timeout: while no
     * server takes writes (or every connection is busy) no connection is handed out in time, and nothing of the
     * request was done.
     */
    private static boolean isTransient(Throwable e) {
        return causes(e).anyMatch(t -> t instanceof JDBCConnectionException || t instanceof SQLTransientException
                || isPoolRefusal(t)
                || t instanceof java.sql.SQLException sql && sql.getSQLState() != null
                        && (sql.getSQLState().startsWith("08") || sql.getSQLState().startsWith("57P")
                        || sql.getSQLState().equals("40001") || sql.getSQLState().equals("40P01")
                        || sql.getSQLState().equals(READ_ONLY_SQL_TRANSACTION))
                || Stream.of(t.getSuppressed()).anyMatch(ProblemMappers::isTransient));
    }
}
