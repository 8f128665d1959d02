package dev.onceguard.platform;

import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerRequestContext;
import org.jboss.resteasy.reactive.server.ServerRequestFilter;
import org.jboss.resteasy.reactive.server.WithFormRead;

import java.util.List;
import java.util.Map;

/**
 * The one check of every path parameter, query parameter and header before a resource method runs: a value
 * PostgreSQL cannot store ({@link StorableText}) or longer than any the service keeps is refused with
 * {@link UnstorableInput}. JSON bodies get the same check when {@link JsonRequests} reads them.
 */
public class StorableInputFilter {

    /** Longer than any id the service issues or stores (keys and user ids are at most 255 characters). */
    static final int MAX_PATH_ID = 255;
    /** Query values are ids, cursors, timestamps and filters; none is anywhere near this long. */
    static final int MAX_QUERY_VALUE = 1024;

    // Among the filters that run once a form body is read, and with this priority after the CSRF filter (RESTEasy
    // Reactive orders that group so; UnstorableInputTest renders console refusals): the console's refusal page renders
    // its forms with the token that filter sets.
    @ServerRequestFilter(priority = Priorities.USER - 1000)
    @WithFormRead
    public void refuseUnstorableInput(ContainerRequestContext request) {
        check(UnstorableInput.Source.PATH, request.getUriInfo().getPathParameters(true), MAX_PATH_ID);
        check(UnstorableInput.Source.QUERY, request.getUriInfo().getQueryParameters(true), MAX_QUERY_VALUE);
        check(UnstorableInput.Source.HEADER, request.getHeaders(), Integer.MAX_VALUE);
    }

    private static void check(UnstorableInput.Source source, Map<String, List<String>> values, int maxLength) {
        for (Map.Entry<String, List<String>> entry : values.entrySet()) {
            String name = entry.getKey();
            StorableText.refusal(name).ifPresent(reason -> {
                throw new UnstorableInput(source, source.name().toLowerCase(java.util.Locale.ROOT), "names " + reason);
            });
            for (String value : entry.getValue()) {
                if (value.length() > maxLength) {
                    throw new UnstorableInput(source, name, "must be at most " + maxLength + " characters");
                }
                StorableText.refusal(value).ifPresent(reason -> {
                    throw new UnstorableInput(source, name, reason);
                });
            }
        }
    }
}
