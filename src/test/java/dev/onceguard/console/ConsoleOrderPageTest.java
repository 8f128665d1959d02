package dev.onceguard.console;

import dev.onceguard.Database;
import dev.onceguard.SandboxWebhooks;
import dev.onceguard.TestTokens;
import dev.onceguard.idempotency.RequestLog;
import io.agroal.api.AgroalDataSource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.Response;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.UUID;

import static dev.onceguard.console.InvestigationPages.ONE_EBOOK;
import static dev.onceguard.console.InvestigationPages.asSupport;
import static dev.onceguard.console.InvestigationPages.createOrder;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * An order id from a customer's email lands on the order's own page, where every operation on the order tells its
 * verdict, the worst first: a provider timeout settled by the webhook alone is not hidden one click away.
 */
@QuarkusTest
class ConsoleOrderPageTest {

    @Inject
    AgroalDataSource db;

    @Inject
    ConsoleReads sql;

    @Inject
    SandboxWebhooks sandboxWebhooks;

    @Inject
    RequestLog requestLog;

    private final String user = TestTokens.newUser();

    private String text(String query, Object... parameters) {
        return sql.one(query, row -> row.getString(1), parameters).orElse(null);
    }

    @Test
    void anOrderWhosePaymentTimedOutAndWasSettledByItsWebhookShowsThatPathFirst() {
        String orderKey = UUID.randomUUID().toString();
        String orderId = createOrder(user, orderKey, ONE_EBOOK).then().statusCode(201).extract().path("orderId");
        Response unknown = given().header("Authorization", TestTokens.bearer(user))
                .header("Idempotency-Key", UUID.randomUUID().toString())
                .contentType("application/json").body("{\"paymentMethodToken\":\"tok_timeout_after_commit\"}")
                .post("/api/orders/" + orderId + "/payments");
        assertThat(unknown.statusCode()).isEqualTo(202);
        String requestId = unknown.header("X-Request-Id");
        String paymentId = unknown.path("paymentId");
        // the sandbox writes the webhook when its late answer is sent, seconds later; its delivery job is off in tests
        await().pollInSameThread().alias("the webhook settles " + paymentId).atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(100))
                .until(() -> {
                    sandboxWebhooks.deliverDueWithin(Duration.ofMinutes(5));
                    return text("SELECT status FROM payments WHERE payment_id = ?", paymentId);
                }, "SUCCEEDED"::equals);
        requestLog.flush();
        String eventId = text("SELECT event_id FROM webhook_inbox WHERE payment_id = ? AND status = 'PROCESSED'", paymentId);
        long inboxId = Database.count(db, "SELECT id FROM webhook_inbox WHERE event_id = ?", eventId);

        Response search = asSupport().redirects().follow(false).queryParam("q", orderId).get("/console/search");
        assertThat(search.statusCode()).isEqualTo(303);
        assertThat(search.header("Location")).endsWith("/console/orders/" + orderId);
        String html = asSupport().get("/console/orders/" + orderId).then().statusCode(200).extract().asString();

        List<Integer> order = List.of(html.indexOf("create-payment</a> with key"), html.indexOf("create-order</a> with key"));
        assertThat(order).as("both operations are on the page").allMatch(at -> at > 0);
        assertThat(order.get(0)).as("the payment's warning before the order's clean creation").isLessThan(order.get(1));
        assertThat(html).contains("class=\"verdict warn\"").contains("class=\"verdict ok\"")
                .containsPattern("UNKNOWN for \\d+(\\.\\d)? s until its payment.succeeded webhook settled it: one charge. "
                        + "The client was answered 202 UNKNOWN after \\d\\.\\d s; the provider’s webhook \\(event "
                        + eventId + "\\) finished the operation.")
                .contains(">" + requestId + "</a>:").contains("answered 202 after")
                .contains("href=\"/console/webhooks/" + inboxId + "\">" + eventId + "</a>")
                .contains("href=\"/console/search?q=" + eventId + "\"");
        assertThat(html.substring(order.get(0), order.get(1))).as("the payment's own verdict").doesNotContain("sent once");
    }

    @Test
    void anOrderThatDoesNotExistIsA404ThatSaysWhatToSearch() {
        assertThat(asSupport().get("/console/orders/ord_nothing_" + UUID.randomUUID()).then().statusCode(404)
                .extract().asString()).contains("There is no order");
    }
}
