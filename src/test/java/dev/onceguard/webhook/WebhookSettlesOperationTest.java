package dev.onceguard.webhook;

import dev.onceguard.idempotency.IdempotencyService;
import dev.onceguard.idempotency.Resumption;
import dev.onceguard.platform.Cause;
import dev.onceguard.webhook.Deliveries.Paid;
import io.agroal.api.AgroalDataSource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.UUID;

import static dev.onceguard.Database.count;
import static dev.onceguard.Database.execute;
import static dev.onceguard.Database.single;
import static dev.onceguard.webhook.Deliveries.deliver;
import static dev.onceguard.webhook.Deliveries.event;
import static dev.onceguard.webhook.Deliveries.newEventId;
import static dev.onceguard.webhook.Deliveries.orderWithPayment;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A webhook that settles a payment whose operation is unfinished has the engine store the operation's final 201, but
 * only while no live lease holds the record: a holder finishes it itself, from the same settled payment.
 */
@QuarkusTest
class WebhookSettlesOperationTest {

    @Inject
    AgroalDataSource db;

    @Inject
    IdempotencyService idempotency;

    /** An UNKNOWN payment whose create-payment record waits at outcome_unknown, its lease given up or held. */
    private long unknownPaymentsOperation(Paid paid, boolean leaseHeld) {
        String key = UUID.randomUUID().toString();
        execute(db, """
                INSERT INTO idempotency_records (user_id, operation, idempotency_key, fingerprint, status, recovery_point,
                    lease_expires_at, resource_type, resource_id, request_id, created_at, expires_at)
                SELECT user_id, 'create-payment', ?, repeat('c', 64), 'PROCESSING', 'outcome_unknown',
                       now() + CAST(? AS interval), 'payment', payment_id, 'seed', now(), now() + interval '24 hours'
                  FROM payments WHERE payment_id = ?""", key, leaseHeld ? "1 minute" : "-1 second", paid.paymentId());
        long recordId = count(db, "SELECT id FROM idempotency_records WHERE idempotency_key = ?", key);
        execute(db, "UPDATE payments SET idempotency_record_id = ? WHERE payment_id = ?", recordId, paid.paymentId());
        return recordId;
    }

    private void succeeded(Paid paid) {
        assertThat(deliver(event(newEventId(), "payment.succeeded", paid.providerPaymentId(), "SUCCEEDED"))
                .path("status").toString()).isEqualTo("processed");
    }

    private String storedAnswer(long recordId) {
        return count(db, "SELECT count(*) FROM idempotency_records WHERE id = ? AND status = 'COMPLETED'"
                + " AND recovery_point = 'finished' AND response_status = 201", recordId) == 1
                ? new String(bodyOf(recordId), StandardCharsets.UTF_8) : "not finished";
    }

    private byte[] bodyOf(long recordId) {
        return single(db, byte[].class, "SELECT response_body FROM idempotency_records WHERE id = ?", recordId);
    }

    @Test
    void theWebhookFinishesAnOperationWhoseLeaseWasGivenUp() {
        Paid paid = orderWithPayment(db, TestPayProvider.NAME, "UNKNOWN");
        long recordId = unknownPaymentsOperation(paid, false);

        succeeded(paid);

        assertThat(storedAnswer(recordId)).contains("\"paymentId\":\"" + paid.paymentId() + "\"",
                "\"status\":\"SUCCEEDED\"");
    }

    @Test
    void theWebhookLeavesAHeldOperationToItsHolderWhichStoresTheSameFinalAnswer() {
        Paid paid = orderWithPayment(db, TestPayProvider.NAME, "UNKNOWN");
        long recordId = unknownPaymentsOperation(paid, true);

        succeeded(paid);
        long stillProcessing = count(db, "SELECT count(*) FROM idempotency_records WHERE id = ? AND status = 'PROCESSING'"
                + " AND recovery_point = 'outcome_unknown'", recordId);
        execute(db, "UPDATE idempotency_records SET lease_expires_at = now() - interval '1 second' WHERE id = ?", recordId);
        Resumption resumption = idempotency.resume(recordId, Cause.leaseRecovery(0));

        assertThat(stillProcessing).isEqualTo(1);
        assertThat(resumption).isInstanceOfSatisfying(Resumption.Finished.class, finished -> {
            assertThat(finished.resumedFrom().recoveryPoint()).isEqualTo("outcome_unknown");
            assertThat(finished.response().status()).isEqualTo(201);
        });
        assertThat(storedAnswer(recordId)).contains("\"status\":\"SUCCEEDED\"");
    }
}
