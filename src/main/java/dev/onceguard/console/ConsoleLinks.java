package dev.onceguard.console;

import io.quarkus.qute.TemplateExtension;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;

/**
 * Addresses of console pages, with every value from a request or the database encoded for its place in the URL.
 * Templates use the same encoding: {@code {user.pathSegment}} in a path, {@code {key.queryValue}} after
 * {@code ?name=} (HTML escaping still applies on top).
 */
public final class ConsoleLinks {

    private ConsoleLinks() {
    }

    @TemplateExtension
    static String pathSegment(String value) {
        return queryValue(value).replace("+", "%20");
    }

    @TemplateExtension
    static String queryValue(String value) {
        return value == null ? "" : URLEncoder.encode(value, StandardCharsets.UTF_8);
    }

    public static String operation(long recordId) {
        return "/console/operations/" + recordId;
    }

    public static String user(String userId) {
        return "/console/users/" + pathSegment(userId);
    }

    public static String webhookEvent(long inboxId) {
        return "/console/webhooks/" + inboxId;
    }

    public static String search(String query) {
        return "/console/search?q=" + queryValue(query);
    }

    /** The order's own page: the order and every operation on it. */
    public static String order(String orderId) {
        return "/console/orders/" + pathSegment(orderId);
    }

    public static String operationsOfOrder(String orderId) {
        return OperationFilter.PATH + "?order=" + queryValue(orderId);
    }
}
