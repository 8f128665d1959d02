package dev.onceguard.console;

import dev.onceguard.Database;
import dev.onceguard.TestTokens;
import dev.onceguard.idempotency.RequestLog;
import io.agroal.api.AgroalDataSource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

import java.util.UUID;

import static dev.onceguard.console.InvestigationPages.ONE_EBOOK;
import static dev.onceguard.console.InvestigationPages.TWO_EBOOKS;
import static dev.onceguard.console.InvestigationPages.createOrder;
import static dev.onceguard.console.InvestigationPages.page;
import static dev.onceguard.console.InvestigationPages.pay;
import static dev.onceguard.console.InvestigationPages.verdict;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The verdict at the top of an operation's page for the three answers to "charged twice?": a retry (same key),
 * a conflict (same key, another payload) and a second purchase (same cart, new key); made through the real API.
 */
@QuarkusTest
class ConsoleVerdictTest {

    @Inject
    AgroalDataSource db;

    @Inject
    ConsoleReads sql;

    @Inject
    RequestLog requestLog;

    private final String user = TestTokens.newUser();

    private long recordOf(String key) {
        return Database.count(db, "SELECT id FROM idempotency_records WHERE user_id = ? AND idempotency_key = ?", user, key);
    }

    /** The page as support sees it once the request log batch (replay counts included) has been written. */
    private String detail(long recordId) {
        requestLog.flush();
        return page("/console/operations/" + recordId, 200);
    }

    @Test
    void aRetriedOrderIsOneIntentWithOneOrder() {
        String key = UUID.randomUUID().toString();
        for (int i = 0; i < 3; i++) {
            createOrder(user, key, ONE_EBOOK).then().statusCode(201);
        }

        String html = detail(recordOf(key));

        assertThat(verdict(html)).contains("One intent, retried 2 times: one order, no charge.")
                .doesNotContain("Key reused").doesNotContain("same cart");
        assertThat(html).contains("Retried 2 times with the same key and payload");
    }

    @Test
    void aRetriedPaymentIsOneIntentWithOneChargeAndItsChainIsShown() {
        String orderId = createOrder(user, UUID.randomUUID().toString(), ONE_EBOOK).then().statusCode(201)
                .extract().path("orderId");
        String key = UUID.randomUUID().toString();
        String paymentId = pay(user, orderId, key, "tok_success").then().statusCode(201).extract().path("paymentId");
        pay(user, orderId, key, "tok_success").then().statusCode(201).header("Idempotent-Replayed", "true");

        String html = detail(recordOf(key));

        assertThat(verdict(html)).contains("One intent, retried 1 time: one order, one charge.");
        assertThat(html).contains(orderId).contains(paymentId).contains("onceguard-" + paymentId)
                .contains("CREATED → SUCCEEDED").contains("ORDER_PAID")
                .doesNotContain("tok_success");
    }

    @Test
    void aKeyReusedWithAnotherPayloadIsAConflictThatCreatedNothing() {
        String key = UUID.randomUUID().toString();
        createOrder(user, key, ONE_EBOOK).then().statusCode(201);
        createOrder(user, key, TWO_EBOOKS).then().statusCode(422);
        createOrder(user, key, TWO_EBOOKS).then().statusCode(422);
        long recordId = recordOf(key);
        String conflictingFingerprint = sql.one("SELECT conflicting_fingerprint FROM idempotency_conflicts WHERE record_id = ? LIMIT 1",
                row -> row.getString(1), recordId).orElseThrow();

        String html = detail(recordId);

        assertThat(verdict(html))
                .contains("Key reused with a different payload 2 times; those requests were refused (422) and created nothing.")
                .contains("One intent, sent once: one order, no charge.");
        assertThat(html).contains(conflictingFingerprint);
        assertThat(Database.count(db, "SELECT count(*) FROM orders WHERE user_id = ?", user)).isEqualTo(1);
    }

    @Test
    void theSameCartUnderANewKeyIsASeparateIntentMarkedWhenCloseInTime() {
        String firstKey = UUID.randomUUID().toString();
        String secondKey = UUID.randomUUID().toString();
        String firstOrder = createOrder(user, firstKey, ONE_EBOOK).then().statusCode(201).extract().path("orderId");
        createOrder(user, secondKey, ONE_EBOOK).then().statusCode(201);

        String close = verdict(detail(recordOf(secondKey)));
        Database.execute(db, "UPDATE idempotency_records SET created_at = created_at - interval '3 hours' "
                + "WHERE user_id = ? AND idempotency_key = ?", user, firstKey);
        String apart = verdict(detail(recordOf(secondKey)));

        assertThat(close).contains("One intent, sent once: one order, no charge.")
                .contains("Another operation with the same cart under a different key exists (")
                .contains("a separate intent — possible double submission, within the 2 min window.")
                .contains(firstKey);
        assertThat(apart).contains("Another operation with the same cart under a different key exists (order "
                        + firstOrder + ", 3 h 0 min apart)")
                .contains("outside the 2 min double-submission window");
        assertThat(Database.count(db, "SELECT count(*) FROM orders WHERE user_id = ?", user)).isEqualTo(2);
    }

    @Test
    void aStoredRefusalSaysNothingWasCreated() {
        String key = UUID.randomUUID().toString();
        String soldOut = "{\"items\":[{\"productId\":\"p-404\",\"quantity\":1}],\"currency\":\"RUB\"}";
        createOrder(user, key, soldOut).then().statusCode(409);
        createOrder(user, key, soldOut).then().statusCode(409);

        assertThat(verdict(detail(recordOf(key))))
                .contains("Refused, and the refusal is stored: the first request was answered 409 OUT_OF_STOCK "
                        + "and its 1 retry got the same answer. This operation created nothing.");
    }

    @Test
    void anOperationPastItsLeaseIsStuck() {
        String key = UUID.randomUUID().toString();
        Database.execute(db, """
                INSERT INTO idempotency_records (user_id, operation, idempotency_key, fingerprint, status, recovery_point,
                    lease_expires_at, request_id, created_at, expires_at)
                VALUES (?, 'create-order', ?, repeat('c', 64), 'PROCESSING', 'started', now() - interval '5 minutes',
                        'req-stuck', now() - interval '6 minutes', now() + interval '1 day')""", user, key);

        assertThat(verdict(detail(recordOf(key))))
                .contains("Stuck past its lease: still PROCESSING at recovery point started, its lease ran out 5 min ago.");
    }
}
