package dev.onceguard.payment.yookassa;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.onceguard.TestTokens;
import dev.onceguard.maintenance.LeaseRecovery;
import dev.onceguard.platform.Cause;
import io.agroal.api.AgroalDataSource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.restassured.response.Response;
import jakarta.inject.Inject;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;

import static dev.onceguard.Database.count;
import static dev.onceguard.Database.execute;
import static dev.onceguard.Database.single;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * What YooKassa asks of a request whose outcome is unknown, through the API and the local stub: the refund whose answer
 * was lost is settled by YooKassa's {@code refund.succeeded} notification, read back through the API; a payment that
 * keeps failing with 5xx is asked about again with the same {@code Idempotence-Key} at growing intervals, with the
 * production waits ({@code unknown-recheck-initial} 10 s, {@code unknown-recheck-max} 30 min).
 */
@QuarkusTest
@TestProfile(YooKassaUnknownOutcomesTest.WithProductionRechecks.class)
class YooKassaUnknownOutcomesTest {

    public static class WithProductionRechecks extends WithYooKassa {
        @Override
        public Map<String, String> getConfigOverrides() {
            Map<String, String> overrides = new HashMap<>(super.getConfigOverrides());
            overrides.put("onceguard.payments.unknown-recheck-initial", "10s");
            overrides.put("onceguard.payments.unknown-recheck-max", "30m");
            return overrides;
        }
    }

    private static final String ORDER = "{\"items\":[{\"productId\":\"p-184\",\"quantity\":1}],\"currency\":\"RUB\"}";
    private static final String YOOKASSA_ADDRESS = "185.71.76.20";

    @Inject
    AgroalDataSource db;

    @Inject
    LeaseRecovery leaseRecovery;

    private final String user = TestTokens.newUser();

    private static YooKassaStub yookassa() {
        return WithYooKassa.Stub.yookassa;
    }

    @AfterEach
    void answerLikeYooKassaAgain() {
        yookassa().answerLikeYooKassa();
    }

    private String newOrder() {
        return given().header("Authorization", TestTokens.bearer(user))
                .header("Idempotency-Key", UUID.randomUUID().toString()).contentType("application/json").body(ORDER)
                .post("/api/orders").then().statusCode(201).extract().path("orderId");
    }

    private Response pay(String orderId, String key) {
        return given().header("Authorization", TestTokens.bearer(user)).header("Idempotency-Key", key)
                .contentType("application/json").body("{\"paymentMethodToken\":\"yookassa_redirect\"}")
                .post("/api/orders/" + orderId + "/payments");
    }

    private static Response notify(ObjectNode object, String event) {
        ObjectNode body = YooKassaStub.shape("notification-payment-succeeded.json");
        body.put("event", event);
        body.set("object", object);
        return given().contentType("application/json").header("X-Forwarded-For", YOOKASSA_ADDRESS)
                .body(body.toString()).post("/webhooks/yookassa");
    }

    private Instant recoverAfter(String paymentId) {
        return single(db, java.sql.Timestamp.class, "SELECT r.recover_after FROM idempotency_records r JOIN payments p"
                + " ON p.idempotency_record_id = r.id WHERE p.payment_id = ?", paymentId).toInstant();
    }

    /**
     * Moves the attempt's life back by {@code age}, as if it had been created that long ago and its wait were over. The
     * wait ends a second ago, not at the database's {@code now()}: lease recovery compares with the service's clock in
     * milliseconds, which may not have reached the database's microseconds yet.
     */
    private void age(String paymentId, Duration age) {
        execute(db, "UPDATE payments SET created_at = now() - make_interval(secs => ?) WHERE payment_id = ?",
                (double) age.toSeconds(), paymentId);
        execute(db, "UPDATE idempotency_records SET recover_after = now() - interval '1 second' WHERE id = (SELECT"
                + " idempotency_record_id FROM payments WHERE payment_id = ?)", paymentId);
    }

    private long createsOf(String paymentId) {
        return yookassa().postsWithKey("onceguard-" + paymentId);
    }

    @Test
    void aPaymentYooKassaKeepsFailingIsAskedAgainWithItsKeyAtDoublingIntervalsUpToTheMaximum() {
        yookassa().answer((request, stub) -> request.method().equals("POST") && request.path().equals("/v3/payments")
                ? YooKassaStub.Reply.json(500, YooKassaStub.shape("error-internal-server-error.json").toString())
                : YooKassaStub.likeYooKassa(request, stub));
        String orderId = newOrder();
        Instant paying = Instant.now();
        Response unknown = pay(orderId, UUID.randomUUID().toString());
        Instant paid = Instant.now();
        String paymentId = unknown.path("paymentId");
        Instant firstWait = recoverAfter(paymentId);

        leaseRecovery.run(Cause.leaseRecovery(1L));
        long createsBeforeTheWaitIsOver = createsOf(paymentId);
        age(paymentId, Duration.ofMinutes(3));
        Instant secondAsked = Instant.now();
        leaseRecovery.run(Cause.leaseRecovery(2L));
        Instant secondAnswered = Instant.now();
        Instant afterThreeMinutes = recoverAfter(paymentId);
        age(paymentId, Duration.ofHours(5));
        Instant thirdAsked = Instant.now();
        leaseRecovery.run(Cause.leaseRecovery(3L));
        Instant thirdAnswered = Instant.now();
        Instant afterFiveHours = recoverAfter(paymentId);

        // each wait is measured from the call that set it, however long a busy machine took over the rest of the test
        assertThat(unknown.statusCode()).isEqualTo(202);
        assertThat(unknown.<String>path("status")).isEqualTo("UNKNOWN");
        assertThat(firstWait).isBetween(paying.plusSeconds(1), paid.plusSeconds(10));
        assertThat(createsBeforeTheWaitIsOver).as("lease recovery left it alone during its first wait").isEqualTo(1);
        assertThat(afterThreeMinutes).isBetween(secondAsked.plus(Duration.ofMinutes(3)).minusSeconds(30),
                secondAnswered.plus(Duration.ofMinutes(3)).plusSeconds(30));
        assertThat(afterFiveHours).isBetween(thirdAsked.plus(Duration.ofMinutes(30)).minusSeconds(30),
                thirdAnswered.plus(Duration.ofMinutes(30)).plusSeconds(30));
        assertThat(createsOf(paymentId)).as("every question was the same create, under the same key").isEqualTo(3);
        assertThat(single(db, String.class, "SELECT status FROM payments WHERE payment_id = ?", paymentId))
                .isEqualTo("UNKNOWN");

        yookassa().answerLikeYooKassa();
        age(paymentId, Duration.ofHours(6));
        leaseRecovery.run(Cause.leaseRecovery(4L));
        assertThat(single(db, String.class, "SELECT status FROM payments WHERE payment_id = ?", paymentId))
                .as("YooKassa answering again, the same key names one payment, waiting for the customer")
                .isEqualTo("REQUIRES_ACTION");
        assertThat(yookassa().paymentsWithKey("onceguard-" + paymentId)).isEqualTo(1);
    }

    @Test
    void aRefundWhoseAnswerWasLostIsSettledByYooKassasNotificationReadBackOnceHoweverOftenItComes() {
        String orderId = newOrder();
        Response redirect = pay(orderId, UUID.randomUUID().toString());
        String paymentId = redirect.path("paymentId");
        String yookassaId = redirect.path("providerPaymentId");
        yookassa().settle(yookassaId, "succeeded");
        assertThat(notify(yookassa().payment(yookassaId), "payment.succeeded").<String>path("status"))
                .isEqualTo("processed");
        yookassa().answer((request, stub) -> {
            YooKassaStub.Reply reply = YooKassaStub.likeYooKassa(request, stub);
            return request.method().equals("POST") && request.path().equals("/v3/refunds")
                    ? new YooKassaStub.Reply(reply.status(), reply.body(), 3_000) : reply;
        });

        Response lost = given().header("Authorization", TestTokens.refunds("support-" + user))
                .header("Idempotency-Key", UUID.randomUUID().toString()).contentType("application/json")
                .body("{\"reason\":\"DUPLICATE\"}").post("/api/payments/" + paymentId + "/refunds");
        yookassa().answerLikeYooKassa();
        String refundId = lost.path("refundId");
        ObjectNode atYooKassa = yookassa().refundsMadeOf(yookassaId).get(0);
        ObjectNode lyingAboutTheAmount = atYooKassa.deepCopy();
        ((ObjectNode) lyingAboutTheAmount.get("amount")).put("value", "1.00");
        Response notified = notify(lyingAboutTheAmount, "refund.succeeded");
        Response again = notify(atYooKassa, "refund.succeeded");

        assertThat(lost.statusCode()).isEqualTo(202);
        assertThat(lost.<String>path("status")).isEqualTo("UNKNOWN");
        assertThat(notified.statusCode()).isEqualTo(200);
        assertThat(notified.<String>path("status")).isEqualTo("processed");
        assertThat(again.<String>path("status")).isEqualTo("duplicate");
        assertThat(single(db, String.class, "SELECT status FROM refunds WHERE refund_id = ?", refundId))
                .isEqualTo("SUCCEEDED");
        assertThat(single(db, String.class, "SELECT status FROM orders WHERE order_id = ?", orderId))
                .isEqualTo("REFUNDED");
        assertThat(count(db, "SELECT count(*) FROM webhook_inbox WHERE provider = 'yookassa' AND event_id = ?"
                + " AND payload #>> '{readBack,amount,value}' = '1500.00'", "refund.succeeded:" + atYooKassa.get("id")
                .asText())).as("the refund's amount is what the API says, not the notification").isEqualTo(1);
        assertThat(yookassa().refundsOf(yookassaId)).isEqualTo(1);
    }
}
