package dev.onceguard.console;

import dev.onceguard.Database;
import dev.onceguard.TestTokens;
import dev.onceguard.platform.Jobs;
import io.agroal.api.AgroalDataSource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static dev.onceguard.console.InvestigationPages.ONE_EBOOK;
import static dev.onceguard.console.InvestigationPages.asSupport;
import static dev.onceguard.console.InvestigationPages.createOrder;
import static dev.onceguard.console.InvestigationPages.page;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Each overview number equals the length of the list its card opens, and counts what an earlier process wrote
 * before it stopped: the numbers hold nothing in memory, so a crash or a restart changes none of them.
 */
@QuarkusTest
class ConsoleOverviewListsTest {

    private static final Pattern CARD = Pattern.compile("id=\"count-([a-z-]+)\"[^>]*href=\"([^\"]+)\">(\\d+)<");

    @Inject
    AgroalDataSource db;

    private final String user = TestTokens.newUser();
    private final List<String> unknownPayments = new ArrayList<>();

    @AfterEach
    void removeTheUnknownPayments() {
        // made without an operation behind them, they must not reach the reconciliation runs of other tests
        unknownPayments.forEach(id -> Database.execute(db, "DELETE FROM payments WHERE payment_id = ?", id));
    }

    /** What a previous process wrote before it was killed: log rows of its last batch, and an UNKNOWN payment. */
    private void writtenBeforeTheRestart() {
        String key = UUID.randomUUID().toString();
        createOrder(user, key, ONE_EBOOK).then().statusCode(201);
        long recordId = Database.count(db, "SELECT id FROM idempotency_records WHERE idempotency_key = ?", key);
        String[][] rows = {{"EXECUTED", "201"}, {"REPLAYED", "201"}, {"REPLAYED", "201"}, {"CONFLICT", "422"},
                {"IN_PROGRESS", "409"}};
        for (String[] row : rows) {
            Database.execute(db, """
                    INSERT INTO idempotency_request_log (record_id, request_id, received_at, outcome, http_status)
                    VALUES (?, ?, now() - interval '10 minutes', ?, ?)""", recordId, "before-restart-" + UUID.randomUUID(),
                    row[0], Integer.parseInt(row[1]));
        }
        String orderId = createOrder(user, UUID.randomUUID().toString(), ONE_EBOOK).then().statusCode(201)
                .extract().path("orderId");
        String paymentId = "pay_overview_" + UUID.randomUUID();
        unknownPayments.add(paymentId);
        Database.execute(db, """
                INSERT INTO payments (payment_id, order_id, user_id, status, amount, currency, provider,
                    provider_idempotency_key, payment_method_token, created_at, updated_at)
                VALUES (?, ?, ?, 'UNKNOWN', 1500.00, 'RUB', 'sandbox', ?, 'cess', now(), now())""",
                paymentId, orderId, user, "onceguard-overview-" + UUID.randomUUID());
    }

    @Test
    void everyCountEqualsTheListItsCardOpens() {
        writtenBeforeTheRestart();

        String overview = page("/console", 200);

        List<String> checked = new ArrayList<>();
        for (Matcher card = CARD.matcher(overview); card.find(); ) {
            String name = card.group(1);
            String href = card.group(2).replace("&amp;", "&");
            long count = Long.parseLong(card.group(3));
            if (name.equals("duplicate") || name.equals("outbox")) {
                continue;
            }
            assertThat(rowsOf(href)).as(name + " card, opening " + href).isEqualTo(count);
            checked.add(name);
        }
        assertThat(checked).containsExactly("executed", "replayed", "conflict", "in-progress", "stuck", "unknown");
        assertThat(overview).containsPattern("id=\"count-replayed\"[^>]*>[1-9]\\d*<")
                .containsPattern("id=\"count-unknown\"[^>]*>[1-9]\\d*<");
    }

    /** The rows of the whole list, from its CSV export (header line left out). */
    private static long rowsOf(String href) {
        String csv = asSupport().urlEncodingEnabled(false).get(href + (href.contains("?") ? "&" : "?") + "format=csv")
                .then().statusCode(200).contentType("text/csv").extract().asString();
        return csv.lines().count() - 1;
    }

    @Test
    void aJobSwitchedOffIsSaidOnTheOverviewAndTheStuckPage() {
        // the test profile switches lease recovery and reconciliation off, as an operator may on a replica
        String overview = page("/console", 200);
        String stuck = page("/console/stuck", 200);

        assertThat(overview).contains("id=\"job-warnings\"")
                .contains(Jobs.LEASE_RECOVERY + " is switched off on this replica (onceguard.jobs.lease-recovery.every=off)")
                .contains("(reconciliation is not at work: see above)")
                .contains("switched off here");
        assertThat(stuck).contains("id=\"job-warnings\"").contains("Recovery is not at work")
                .doesNotContain("Lease recovery picks them up on its next run");
    }
}
