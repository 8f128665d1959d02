package dev.onceguard.console;

import io.quarkus.qute.TemplateExtension;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;

/**
 * Values from requests or the database placed in links: {@code {user.pathSegment}} in a path,
 * {@code {key.queryValue}} after {@code ?name=}. HTML escaping still applies on top.
 */
@TemplateExtension
public final class ConsoleUrls {

    private ConsoleUrls() {
    }

    static String pathSegment(String value) {
        return queryValue(value).replace("+", "%20");
    }

    static String queryValue(String value) {
        return value == null ? "" : URLEncoder.encode(value, StandardCharsets.UTF_8);
    }
}
