package dev.onceguard.payment;

import dev.onceguard.TestTokens;
import dev.onceguard.platform.Ids;
import io.agroal.api.AgroalDataSource;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static dev.onceguard.Database.execute;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

@QuarkusTest
class UnknownPaymentsGaugeTest {

    // Older than anything another test leaves UNKNOWN, so that it is the oldest.
    private static final double FORTY_DAYS = Duration.ofDays(40).toSeconds();

    @Inject
    Ids ids;

    @Inject
    AgroalDataSource db;

    @Inject
    MeterRegistry registry;

    @Test
    void countsUnknownAttemptsAndAgesTheOldestFromWhenItBecameUnknown() throws InterruptedException {
        String orderId = ids.next("ord");
        String paymentId = ids.next("pay");
        execute(db, """
                INSERT INTO orders (order_id, user_id, status, total, currency, request_id, created_at, updated_at)
                VALUES (?, ?, 'AWAITING_PAYMENT', 1500.00, 'RUB', 'gauge-test', now() - interval '41 days',
                        now() - interval '41 days')""", orderId, TestTokens.newUser());
        execute(db, """
                INSERT INTO payments (payment_id, order_id, user_id, status, amount, currency, provider,
                    provider_idempotency_key, payment_method_token, created_at, updated_at)
                SELECT ?, order_id, user_id, 'UNKNOWN', total, currency, 'sandbox', 'onceguard-' || ?, 'tok_timeout_after_commit',
                       now() - interval '41 days', now() - interval '40 days'
                  FROM orders WHERE order_id = ?""", paymentId, paymentId, orderId);
        try {
            await().pollInSameThread()
                    .atMost(Duration.ofSeconds(15)).pollInterval(Duration.ofMillis(250)).until(() -> age() >= FORTY_DAYS);

            assertThat(registry.get("onceguard.payments.unknown").gauge().value()).isGreaterThanOrEqualTo(1);
            assertThat(age()).as("from updated_at, not created_at").isBetween(FORTY_DAYS, FORTY_DAYS + 60);
        } finally {
            execute(db, "DELETE FROM payments WHERE payment_id = ?", paymentId);
            execute(db, "DELETE FROM orders WHERE order_id = ?", orderId);
        }
    }

    private double age() {
        return registry.get("onceguard.payments.unknown.oldest.age.seconds").gauge().value();
    }
}
