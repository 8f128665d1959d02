package dev.onceguard.console;

import dev.onceguard.Database;
import dev.onceguard.TestTokens;
import dev.onceguard.maintenance.LeaseRecovery;
import io.agroal.api.AgroalDataSource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.UUID;

import static dev.onceguard.Database.execute;
import static dev.onceguard.console.InvestigationPages.ONE_EBOOK;
import static dev.onceguard.console.InvestigationPages.page;
import static dev.onceguard.console.InvestigationPages.verdict;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The record knows how it ended: what finished it and whether its first request's client got an answer, kept in its
 * own row by the statement that finished it, and the operation page tells that path instead of a green "sent once".
 */
@QuarkusTest
class RecordEndingTest {

    @Inject
    AgroalDataSource db;

    @Inject
    ConsoleReads sql;

    @Inject
    LeaseRecovery leaseRecovery;

    private final String user = TestTokens.newUser();

    private String ending(long recordId) {
        return sql.one("""
                        SELECT ending_recorded || ' ' || coalesce(finished_by, '-') || ' ' || coalesce(finished_by_ref, '-')
                               || ' ' || coalesce(first_answer_status::text, '-')
                               || ' ' || (first_answered_at IS NOT DISTINCT FROM completed_at)
                          FROM idempotency_records WHERE id = ?""", row -> row.getString(1), recordId).orElseThrow();
    }

    private long recordOf(String key) {
        return Database.count(db, "SELECT id FROM idempotency_records WHERE user_id = ? AND idempotency_key = ?", user, key);
    }

    /** Creates an order; returns the id the service gave the request. */
    private String createOrder(String key) {
        return given().header("Authorization", TestTokens.bearer(user)).header("Idempotency-Key", key)
                .contentType("application/json").body(ONE_EBOOK)
                .post("/api/orders").then().statusCode(201).extract().header("X-Request-Id");
    }

    @Test
    void anOrderAnsweredByItsOwnRequestSaysSoInItsRowAndReadsSentOnce() {
        String key = UUID.randomUUID().toString();
        String requestId = createOrder(key);

        long recordId = recordOf(key);
        assertThat(ending(recordId)).isEqualTo("true request " + requestId + " 201 true");
        String html = page("/console/operations/" + recordId, 200);
        assertThat(verdict(html)).contains("One intent, sent once: one order, no charge.");
        assertThat(html).contains("class=\"verdict ok\"").doesNotContain("id=\"lost-request\"");
    }

    @Test
    void aPaymentWhoseProcessDiedAfterTheProviderCommittedIsFinishedByLeaseRecoveryAndNeverReadsGreen() {
        String key = UUID.randomUUID().toString();
        createOrder(key);
        String orderId = sql.one("SELECT resource_id FROM idempotency_records WHERE id = ?", row -> row.getString(1),
                recordOf(key)).orElseThrow();
        String paymentId = "pay_" + UUID.randomUUID();
        String lostRequest = "req-lost-" + UUID.randomUUID();
        // what a SIGKILL during the provider call leaves: the payment, the provider's committed charge under the
        // payment's provider key, and the record PROCESSING at payment_created whose lease has run out
        execute(db, """
                INSERT INTO payments (payment_id, order_id, user_id, status, amount, currency, provider,
                    provider_idempotency_key, payment_method_token, created_at, updated_at)
                SELECT ?, order_id, user_id, 'CREATED', total, currency, 'sandbox', ?, 'tok_success',
                       now() - interval '40 seconds', now() - interval '40 seconds'
                  FROM orders WHERE order_id = ?""", paymentId, "onceguard-" + paymentId, orderId);
        String total = Database.single(db, String.class, "SELECT total::text FROM orders WHERE order_id = ?", orderId);
        given().header("Idempotency-Key", "onceguard-" + paymentId).contentType("application/json")
                .body("{\"amount\":\"" + total + "\",\"currency\":\"RUB\",\"paymentMethodToken\":\"tok_success\","
                        + "\"metadata\":{\"order_id\":\"" + orderId + "\",\"payment_id\":\"" + paymentId + "\"}}")
                .post("/sandbox/v1/payments").then().statusCode(201);
        String payKey = UUID.randomUUID().toString();
        execute(db, """
                INSERT INTO idempotency_records (user_id, operation, idempotency_key, fingerprint, status, recovery_point,
                    lease_expires_at, resource_type, resource_id, request_id, created_at, expires_at)
                VALUES (?, 'create-payment', ?, repeat('b', 64), 'PROCESSING', 'payment_created',
                        now() - interval '10 seconds', 'payment', ?, ?, now() - interval '40 seconds',
                        now() + interval '1 day')""", user, payKey, paymentId, lostRequest);
        long recordId = recordOf(payKey);
        execute(db, "UPDATE payments SET idempotency_record_id = ? WHERE payment_id = ?", recordId, paymentId);

        leaseRecovery.runNow();

        long runId = Database.count(db, "SELECT max(id) FROM job_runs WHERE job = 'lease-recovery'");
        assertThat(ending(recordId)).isEqualTo("true lease_recovery " + runId + " - false");
        assertThat(given().get("/sandbox/v1/payments?orderId=" + orderId).then().extract().<List<Object>>path("data"))
                .as("one charge at the provider").hasSize(1);
        String html = page("/console/operations/" + recordId, 200);
        assertThat(verdict(html)).containsPattern("The process died before answering; lease recovery \\(run " + runId
                        + "\\) finished it \\d+ s later with the provider’s own answer: one charge.")
                .doesNotContain("sent once");
        assertThat(html).contains("class=\"verdict warn\"")
                .contains("Request " + lostRequest + ": no answer recorded")
                .contains("id=\"lost-request\"")
                .contains("Operation finished by lease recovery (run " + runId + "): stored answer 201")
                .contains("href=\"/console/jobs?job=lease-recovery\"");
    }

    @Test
    void aRecordFinishedBeforeTheServiceKeptItsEndingReadsUnknownNotClean() {
        String key = UUID.randomUUID().toString();
        createOrder(key);
        long recordId = recordOf(key);
        // as the migration leaves the rows that were there before it
        execute(db, "UPDATE idempotency_records SET ending_recorded = false, finished_by = NULL, finished_by_ref = NULL,"
                + " first_answer_status = NULL, first_answered_at = NULL WHERE id = ?", recordId);

        String html = page("/console/operations/" + recordId, 200);

        assertThat(verdict(html)).contains("How this operation ended is unknown").contains("one order, no charge")
                .doesNotContain("sent once");
        assertThat(html).contains("class=\"verdict warn\"").doesNotContain("id=\"lost-request\"")
                .contains("unknown: not recorded when it finished");
    }
}
