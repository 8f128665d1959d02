package dev.onceguard.console;

import dev.onceguard.TestTokens;
import io.restassured.response.Response;
import io.restassured.specification.RequestSpecification;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static io.restassured.RestAssured.given;

/** The checkout API as a client calls it, and the console's investigation pages as support and admin see them. */
final class InvestigationPages {

    static final String ONE_EBOOK = "{\"items\":[{\"productId\":\"p-184\",\"quantity\":1}],\"currency\":\"RUB\"}";
    static final String TWO_EBOOKS = "{\"items\":[{\"productId\":\"p-184\",\"quantity\":2}],\"currency\":\"RUB\"}";
    private static final Pattern RECORD_LINK = Pattern.compile("href=\"/console/operations/(\\d+)\"");

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
