package dev.onceguard.console;

import dev.onceguard.Database;
import dev.onceguard.TestTokens;
import dev.onceguard.idempotency.RequestLog;
import io.agroal.api.AgroalDataSource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.Response;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.UUID;

import static dev.onceguard.console.InvestigationPages.ONE_EBOOK;
import static dev.onceguard.console.InvestigationPages.TWO_EBOOKS;
import static dev.onceguard.console.InvestigationPages.page;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The operation page's list of the requests that reached a record, each with its request id and answer, and a
 * key-reuse conflict shown field by field on the operation page and the conflicts list; made through the real API,
 * the request log written by its own batch.
 */
@QuarkusTest
class ConsoleRequestHistoryTest {

    @Inject
    AgroalDataSource db;

    @Inject
    RequestLog requestLog;

    private final String user = TestTokens.newUser();

    private long recordOf(String key) {
        return Database.count(db, "SELECT id FROM idempotency_records WHERE user_id = ? AND idempotency_key = ?", user, key);
    }

    private Response order(String key, String requestId, String body) {
        return given().header("Authorization", TestTokens.bearer(user)).header("Idempotency-Key", key)
                .header("X-Request-Id", requestId).contentType("application/json").body(body).post("/api/orders");
    }

    private static String section(String html, String start, String end) {
        int from = html.indexOf(start);
        assertThat(from).as(start).isNotNegative();
        return html.substring(from, html.indexOf(end, from));
    }

    @Test
    void everyRetryIsListedWithItsOwnRequestIdAndAnswerOldestFirst() {
        String key = UUID.randomUUID().toString();
        String run = UUID.randomUUID().toString().substring(0, 8);
        List<String> requestIds = List.of(
                order(key, "client-first-" + run, ONE_EBOOK).then().statusCode(201).extract().header("X-Request-Id"),
                order(key, "client-retry-a-" + run, ONE_EBOOK).then().statusCode(201)
                        .header("Idempotent-Replayed", "true").extract().header("X-Request-Id"),
                order(key, "client-retry-b-" + run, ONE_EBOOK).then().statusCode(201)
                        .header("Idempotent-Replayed", "true").extract().header("X-Request-Id"),
                order(key, "client-changed-" + run, TWO_EBOOKS).then().statusCode(422).extract().header("X-Request-Id"));
        long recordId = recordOf(key);
        assertThat(page("/console/operations/" + recordId, 200))
                .contains("No request of this record is in the request log yet");

        requestLog.flush();

        String log = section(page("/console/operations/" + recordId, 200), "id=\"request-log\"", "</table>");
        assertThat(log).contains("4 requests, oldest first");
        assertThat(log.indexOf("client-first-" + run)).isLessThan(log.indexOf("client-retry-a-" + run));
        assertThat(log.indexOf("client-retry-a-" + run)).isLessThan(log.indexOf("client-retry-b-" + run));
        assertThat(log.indexOf("client-retry-b-" + run)).isLessThan(log.indexOf("client-changed-" + run));
        List<String> clientIds = List.of("client-first-", "client-retry-a-", "client-retry-b-", "client-changed-");
        for (int i = 0; i < clientIds.size(); i++) {
            assertThat(log).as("the service's id beside the client's").contains("<td class=\"mono\">" + requestIds.get(i)
                    + "</td>\n          <td class=\"mono\">" + clientIds.get(i) + run + "</td>");
        }
        assertThat(log.split("replayed the stored answer", -1)).hasSize(3);
        assertThat(log).contains("ran the operation").contains("refused: key reused with another payload");
    }

    @Test
    void aConflictShowsWhatTheRefusedRequestChangedFieldByField() {
        String key = UUID.randomUUID().toString();
        order(key, "first-" + key, ONE_EBOOK).then().statusCode(201);
        order(key, "changed-" + key, TWO_EBOOKS).then().statusCode(422);
        long recordId = recordOf(key);

        String diff = section(page("/console/operations/" + recordId, 200), "What the refused request changed", "</table>");
        assertThat(diff).contains("items[0].quantity <span class=\"sub\">(changed)</span>")
                .contains("<td class=\"mono\">1</td>").contains("<td class=\"mono\">2</td>")
                .doesNotContain("items[0].productId").doesNotContain("currency");

        String conflicts = page("/console/conflicts?key=" + key, 200);
        assertThat(conflicts).contains("<span class=\"mono\">items[0].quantity</span>: <span class=\"mono\">1</span> → "
                + "<span class=\"mono\">2</span>");
    }

    @Test
    void aPaymentConflictComparesOnlyTheLastFourCharactersOfTheToken() {
        String orderId = order(UUID.randomUUID().toString(), "order-" + UUID.randomUUID(), ONE_EBOOK)
                .then().statusCode(201).extract().path("orderId");
        String key = UUID.randomUUID().toString();
        for (String token : new String[] {"tok_success", "tok_decline"}) {
            given().header("Authorization", TestTokens.bearer(user)).header("Idempotency-Key", key)
                    .contentType("application/json").body("{\"paymentMethodToken\":\"" + token + "\"}")
                    .post("/api/orders/" + orderId + "/payments");
        }

        String html = page("/console/operations/" + recordOf(key), 200);

        String diff = section(html, "What the refused request changed", "</table>");
        assertThat(diff).contains("paymentMethodToken").contains("&quot;cess&quot;").contains("&quot;line&quot;");
        assertThat(html).doesNotContain("tok_success").doesNotContain("tok_decline");
    }

    @Test
    void aConflictWhoseBodiesWereNotKeptShowsTheFingerprintsOnly() {
        String key = UUID.randomUUID().toString();
        order(key, "first-" + key, ONE_EBOOK).then().statusCode(201);
        order(key, "changed-" + key, TWO_EBOOKS).then().statusCode(422);
        long recordId = recordOf(key);
        // as a record written before bodies were kept
        Database.execute(db, "UPDATE idempotency_records SET request_body = NULL WHERE id = ?", recordId);

        assertThat(page("/console/operations/" + recordId, 200))
                .contains("The bodies of this conflict were not kept, so only the fingerprints can be compared.")
                .doesNotContain("What the refused request changed");
    }
}
