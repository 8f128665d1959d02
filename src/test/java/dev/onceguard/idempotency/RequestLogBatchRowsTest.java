package dev.onceguard.idempotency;

import dev.onceguard.HaltedScheduler;
import dev.onceguard.TestTokens;
import dev.onceguard.checkout.OrdersApi;
import io.agroal.api.AgroalDataSource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.UUID;

import static dev.onceguard.Database.count;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Under load the request log does not wait for its interval: once {@code batch-rows} rows are pending, a worker writes
 * them at once. Here batches are five rows and the interval never comes (the scheduler is halted), so only the count
 * can write them.
 */
@QuarkusTest
@TestProfile(HaltedScheduler.class)
class RequestLogBatchRowsTest {

    @Inject
    AgroalDataSource db;

    private static void order(String user, String key) {
        OrdersApi.createOrder(user, key, OrdersApi.ONE_EBOOK).then().statusCode(201);
    }

    private long loggedRows(String user) {
        return count(db, """
                SELECT count(*) FROM idempotency_request_log l JOIN idempotency_records r ON r.id = l.record_id
                 WHERE r.user_id = ?""", user);
    }

    @Test
    void theRowThatFillsABatchHasTheBatchWrittenWithoutWaitingForTheInterval() throws InterruptedException {
        String user = TestTokens.newUser();
        String key = UUID.randomUUID().toString();
        order(user, key);
        for (int replay = 1; replay <= 3; replay++) {
            order(user, key);
        }
        assertThat(loggedRows(user)).as("four rows pending, one short of a batch").isZero();

        order(user, key);

        await().pollInSameThread().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(50))
                .untilAsserted(() -> assertThat(loggedRows(user)).isEqualTo(5));
        assertThat(count(db, """
                SELECT count(*) FROM idempotency_request_log l JOIN idempotency_records r ON r.id = l.record_id
                 WHERE r.user_id = ? AND l.outcome = 'REPLAYED'""", user)).isEqualTo(4);
        assertThat(count(db, "SELECT replay_count FROM idempotency_records WHERE user_id = ?", user)).isEqualTo(4);
    }
}
