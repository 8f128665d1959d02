package dev.onceguard.console;

import dev.onceguard.TestTokens;
import io.restassured.response.Response;
import io.restassured.specification.RequestSpecification;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static io.restassured.RestAssured.given;

/** The checkout API as a client calls it, and the console's investigation pages as support and admin see them. */
final class InvestigationPages {

    static final String ONE_EBOOK = "{\"items\":[{\"productId\":\"p-184\",\"quantity\":1}],\"currency\":\"RUB\"}";
    static final String TWO_EBOOKS = "{\"items\":[{\"productId\":\"p-184\",\"quantity\":2}],\"currency\":\"RUB\"}";
    private static final Pattern RECORD_LINK = Pattern.compile("href=\"/console/operations/(\\d+)\"");
    private static final Pattern ROW = Pattern.compile(
            "<th scope=\"row\"><a class=\"mono\" href=\"/console/operations/(\\d+)\">([^<]*)</a>");
    private static final Pattern NEXT_PAGE = Pattern.compile("<a rel=\"next\" href=\"([^\"]+)\"");

    private InvestigationPages() {
    }

    static Response createOrder(String userId, String key, String body) {
        return given().header("Authorization", TestTokens.bearer(userId)).header("Idempotency-Key", key)
                .contentType("application/json").body(body).post("/api/orders");
    }

    static Response pay(String userId, String orderId, String key, String token) {
        return given().header("Authorization", TestTokens.bearer(userId)).header("Idempotency-Key", key)
                .contentType("application/json").body("{\"paymentMethodToken\":\"" + token + "\"}")
                .post("/api/orders/" + orderId + "/payments");
    }

    static RequestSpecification asSupport() {
        return given().auth().preemptive().basic("support", "support-password").redirects().follow(false);
    }

    static RequestSpecification asAdmin() {
        return given().auth().preemptive().basic("admin", "admin-password").redirects().follow(false);
    }

    /** A page as support sees it; fails unless it answers {@code status}. */
    static String page(String path, int status) {
        return asSupport().get(path).then().statusCode(status).contentType("text/html").extract().asString();
    }

    /** A page at an address taken from a page (already encoded), as support sees it. */
    static String pageAt(String href, int status) {
        return asSupport().urlEncodingEnabled(false).get(href).then().statusCode(status).contentType("text/html")
                .extract().asString();
    }

    /** The record ids of a list's rows, in page order. */
    static List<Long> rowIds(String html) {
        List<Long> ids = new ArrayList<>();
        for (Matcher row = ROW.matcher(html); row.find(); ) {
            ids.add(Long.parseLong(row.group(1)));
        }
        return ids;
    }

    /** The idempotency keys of a list's rows, in page order, as HTML text. */
    static List<String> rowKeys(String html) {
        List<String> keys = new ArrayList<>();
        for (Matcher row = ROW.matcher(html); row.find(); ) {
            keys.add(row.group(2));
        }
        return keys;
    }

    /** The "older" link of a list page, ready to request; empty on the last page. */
    static Optional<String> nextPage(String html) {
        Matcher next = NEXT_PAGE.matcher(html);
        return next.find() ? Optional.of(next.group(1).replace("&amp;", "&")) : Optional.empty();
    }

    /** The table row ({@code <tr ...>} to {@code </tr>}) that shows {@code key}. */
    static String rowOf(String html, String key) {
        int at = html.indexOf(">" + key + "</a>");
        if (at < 0) {
            throw new AssertionError("no row for key " + key);
        }
        return html.substring(html.lastIndexOf("<tr", at), html.indexOf("</tr>", at));
    }

    /** The id of the first record linked from {@code html} (the newest row of a list). */
    static long firstRecordId(String html) {
        Matcher link = RECORD_LINK.matcher(html);
        if (!link.find()) {
            throw new AssertionError("no operation link in the page");
        }
        return Long.parseLong(link.group(1));
    }

    /** The text of the verdict box of a detail page, tags removed. */
    static String verdict(String html) {
        int start = html.indexOf("id=\"verdict\"");
        int end = html.indexOf("</section>", start);
        if (start < 0 || end < 0) {
            throw new AssertionError("no verdict in the page");
        }
        return html.substring(start, end).replaceAll("<[^>]+>", " ").replaceAll("\\s+", " ");
    }
}
