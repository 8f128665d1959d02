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
import static dev.onceguard.console.InvestigationPages.createOrder;
import static dev.onceguard.console.InvestigationPages.page;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The operation page's list of the requests that reached a record, each with its request id and answer, and a
 * key-reuse conflict shown field by field, on the operation page and the conflicts list. The rows the engine's
 * request log writer leaves are written here as it writes them.
 */
@QuarkusTest
class ConsoleRequestHistoryTest {

    @Inject
    AgroalDataSource db;

    private final String user = TestTokens.newUser();

    private long recordOf(String key) {
        return Database.count(db, "SELECT id FROM idempotency_records WHERE user_id = ? AND idempotency_key = ?", user, key);
    }

    private void logged(long recordId, String requestId, String outcome, int status, int secondsAgo) {
        Database.execute(db, """
                INSERT INTO idempotency_request_log (record_id, request_id, received_at, outcome, http_status)
                VALUES (?, ?, now() - make_interval(secs => ?), ?, ?)""", recordId, requestId, secondsAgo, outcome, status);
    }

    @Test
    void everyRequestOfTheRecordIsListedWithItsRequestIdAndAnswerOldestFirst() {
        String key = UUID.randomUUID().toString();
        createOrder(user, key, ONE_EBOOK).then().statusCode(201);
        long recordId = recordOf(key);
        logged(recordId, "client-first-1", "EXECUTED", 201, 30);
        logged(recordId, "client-retry-2", "REPLAYED", 201, 20);
        logged(recordId, "client-retry-3", "REPLAYED", 201, 10);

        String html = page("/console/operations/" + recordId, 200);

        String log = html.substring(html.indexOf("id=\"request-log\""), html.indexOf("</table>", html.indexOf("id=\"request-log\"")));
        assertThat(log).contains("3 requests, oldest first");
        assertThat(log.indexOf("client-first-1")).isLessThan(log.indexOf("client-retry-2"));
        assertThat(log.indexOf("client-retry-2")).isLessThan(log.indexOf("client-retry-3"));
        assertThat(log).contains("replayed the stored answer").contains("ran the operation");
    }

    @Test
    void aRecordWithNothingLoggedSaysSo() {
        String key = UUID.randomUUID().toString();
        createOrder(user, key, ONE_EBOOK).then().statusCode(201);

        assertThat(page("/console/operations/" + recordOf(key), 200))
                .contains("No request of this record is in the request log yet");
    }

    @Test
    void aConflictShowsWhatTheRefusedRequestChangedFieldByField() {
        String key = UUID.randomUUID().toString();
        createOrder(user, key, ONE_EBOOK).then().statusCode(201);
        createOrder(user, key, TWO_EBOOKS).then().statusCode(422);
        long recordId = recordOf(key);
        Database.execute(db, "UPDATE idempotency_records SET request_body = ?::jsonb WHERE id = ?", ONE_EBOOK, recordId);
        Database.execute(db, "UPDATE idempotency_conflicts SET refused_body = ?::jsonb WHERE record_id = ?",
                "{\"items\":[{\"productId\":\"p-184\",\"quantity\":2}],\"currency\":\"RUB\",\"note\":\"gift\"}", recordId);

        String html = page("/console/operations/" + recordId, 200);
        String diff = html.substring(html.indexOf("What the refused request changed"), html.indexOf("</table>",
                html.indexOf("What the refused request changed")));
        assertThat(diff).contains("items[0].quantity <span class=\"sub\">(changed)</span>")
                .contains("<td class=\"mono\">1</td>").contains("<td class=\"mono\">2</td>")
                .contains("note <span class=\"sub\">(added)</span>").contains("&quot;gift&quot;")
                .doesNotContain("items[0].productId").doesNotContain("currency");

        String conflicts = page("/console/conflicts?key=" + key, 200);
        assertThat(conflicts).contains("<span class=\"mono\">items[0].quantity</span>: <span class=\"mono\">1</span> → <span class=\"mono\">2</span>")
                .contains("<span class=\"mono\">note</span>: absent → <span class=\"mono\">&quot;gift&quot;</span>");
    }

    @Test
    void aConflictWhoseBodiesWereNotKeptShowsTheFingerprintsOnly() {
        String key = UUID.randomUUID().toString();
        createOrder(user, key, ONE_EBOOK).then().statusCode(201);
        createOrder(user, key, TWO_EBOOKS).then().statusCode(422);
        long recordId = recordOf(key);
        Database.execute(db, "UPDATE idempotency_records SET request_body = NULL WHERE id = ?", recordId);

        assertThat(page("/console/operations/" + recordId, 200))
                .contains("The bodies of this conflict were not kept, so only the fingerprints can be compared.")
                .doesNotContain("What the refused request changed");
    }
}
