package dev.onceguard.console;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;

/** Addresses of the investigation pages, with every value from the database encoded for its place in the URL. */
public final class ConsoleLinks {

    private ConsoleLinks() {
    }

    public static String operation(long recordId) {
        return "/console/operations/" + recordId;
    }

    public static String user(String userId) {
        return "/console/users/" + URLEncoder.encode(userId, StandardCharsets.UTF_8).replace("+", "%20");
    }

    public static String operationsOfOrder(String orderId) {
        return OperationFilter.PATH + "?order=" + URLEncoder.encode(orderId, StandardCharsets.UTF_8);
    }
}
