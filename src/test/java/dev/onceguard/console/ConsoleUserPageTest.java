package dev.onceguard.console;

import dev.onceguard.Database;
import dev.onceguard.TestTokens;
import io.agroal.api.AgroalDataSource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

import java.util.UUID;

import static dev.onceguard.console.InvestigationPages.ONE_EBOOK;
import static dev.onceguard.console.InvestigationPages.TWO_EBOOKS;
import static dev.onceguard.console.InvestigationPages.asSupport;
import static dev.onceguard.console.InvestigationPages.createOrder;
import static dev.onceguard.console.InvestigationPages.pay;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The user page tells everything a support agent needs about a user: the requests turned away beside the operations,
 * and one double submission as one pair naming both orders, on the user page and on both orders' pages.
 */
@QuarkusTest
class ConsoleUserPageTest {

    @Inject
    AgroalDataSource db;

    private final String user = TestTokens.newUser();

    @Test
    void oneDoubleSubmissionIsOnePairNamingBothOrdersAndTurnedAwayRequestsAreListed() {
        String firstKey = UUID.randomUUID().toString();
        String first = createOrder(user, firstKey, ONE_EBOOK).then().statusCode(201).extract().path("orderId");
        String second = createOrder(user, UUID.randomUUID().toString(), ONE_EBOOK).then().statusCode(201)
                .extract().path("orderId");
        pay(user, first, UUID.randomUUID().toString(), "tok_success").then().statusCode(201);
        pay(user, second, UUID.randomUUID().toString(), "tok_success").then().statusCode(201);
        String conflictClientRequest = "req-reuse-" + UUID.randomUUID();
        String conflictRequest = reuseKeyWithAnotherCart(firstKey, conflictClientRequest);
        long firstRecord = Database.count(db, "SELECT id FROM idempotency_records WHERE user_id = ? AND idempotency_key = ?",
                user, firstKey);
        String waitingRequest = "req-waiting-" + UUID.randomUUID();
        // the request log is written in batches off the request path: a 409 as a batch leaves it
        Database.execute(db, """
                INSERT INTO idempotency_request_log (record_id, request_id, received_at, outcome, http_status)
                VALUES (?, ?, now(), 'IN_PROGRESS', 409)""", firstRecord, waitingRequest);

        String html = asSupport().get("/console/users/" + user).then().statusCode(200).extract().asString();

        assertThat(html).contains("1 possible double submission</span>").doesNotContain("2 possible double submissions")
                .contains("same cart as order <a class=\"mono\" href=\"/console/orders/" + second + "\">" + second + "</a>")
                .contains("same cart as order <a class=\"mono\" href=\"/console/orders/" + first + "\">" + first + "</a>");
        String turnedAway = html.substring(html.indexOf("id=\"turned-away\""), html.indexOf("id=\"orders-heading\""));
        assertThat(turnedAway).contains(conflictRequest + "</td>\n          <td class=\"mono\">" + conflictClientRequest)
                .contains("422 refused: key reused with another payload")
                .contains(waitingRequest).contains("409 refused: the first request was still running");
        for (String[] pair : new String[][] {{first, second}, {second, first}}) {
            assertThat(asSupport().get("/console/orders/" + pair[0]).then().statusCode(200).extract().asString())
                    .as("the page of order " + pair[0] + " names the other")
                    .contains("Another operation with the same cart under a different key exists (order " + pair[1] + ", ");
        }
    }

    /**
     * The first key sent again with another cart: refused with 422, kept as a conflict. Returns the id the service gave
     * the request.
     */
    private String reuseKeyWithAnotherCart(String key, String clientRequestId) {
        return io.restassured.RestAssured.given().header("Authorization", TestTokens.bearer(user))
                .header("Idempotency-Key", key).header("X-Request-Id", clientRequestId).contentType("application/json")
                .body(TWO_EBOOKS).post("/api/orders").then().statusCode(422).extract().header("X-Request-Id");
    }
}
