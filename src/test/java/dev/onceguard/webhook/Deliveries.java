package dev.onceguard.webhook;

import dev.onceguard.Database;
import dev.onceguard.platform.Ids;
import io.agroal.api.AgroalDataSource;
import io.restassured.response.Response;

import java.nio.charset.StandardCharsets;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.HexFormat;
import java.util.UUID;

import static io.restassured.RestAssured.given;

/** Orders and payments inserted as SQL, and testpay webhook deliveries as the provider would send them. */
final class Deliveries {

    private static final Ids IDS = new Ids();

    record Paid(String orderId, String paymentId, String providerPaymentId) {
    }

    private Deliveries() {
    }

    /** An order awaiting payment with one attempt at {@code provider}, in {@code status}. */
    static Paid orderWithPayment(AgroalDataSource db, String provider, String status) {
        String orderId = IDS.next("ord");
        String paymentId = IDS.next("pay");
        String providerPaymentId = provider + "_" + UUID.randomUUID();
        Timestamp now = Timestamp.from(Instant.now());
        Database.execute(db, """
                INSERT INTO orders (order_id, user_id, status, total, currency, request_id, created_at, updated_at)
                VALUES (?, ?, 'AWAITING_PAYMENT', 1500.00, 'RUB', 'test', ?, ?)""",
                orderId, "u-" + UUID.randomUUID(), now, now);
        Database.execute(db, """
                INSERT INTO payments (payment_id, order_id, user_id, status, amount, currency, provider,
                    provider_idempotency_key, provider_payment_id, payment_method_token, created_at, updated_at)
                SELECT ?, order_id, user_id, ?, total, currency, ?, ?, ?, 'tok_success', ?, ?
                  FROM orders WHERE order_id = ?""",
                paymentId, status, provider, "onceguard-" + paymentId, providerPaymentId, now, now, orderId);
        return new Paid(orderId, paymentId, providerPaymentId);
    }

    /** An event about a payment of 1500.00 RUB, the amount {@link #orderWithPayment} pays. */
    static String event(String eventId, String type, String providerPaymentId, String status) {
        return event(eventId, type, providerPaymentId, status, "1500.00", "RUB");
    }

    static String event(String eventId, String type, String providerPaymentId, String status, String amount,
                        String currency) {
        return "{\"id\":\"" + eventId + "\",\"type\":\"" + type + "\",\"payment\":\"" + providerPaymentId
                + "\",\"status\":\"" + status + "\",\"amount\":\"" + amount + "\",\"currency\":\"" + currency + "\"}";
    }

    static String newEventId() {
        return "evt_" + UUID.randomUUID();
    }

    static Response deliver(String body) {
        long now = Instant.now().getEpochSecond();
        return deliver(body, now, HexFormat.of().formatHex(TestPayProvider.sign(now, body.getBytes(StandardCharsets.UTF_8))));
    }

    static Response deliver(String body, long timestamp, String signature) {
        return given().contentType("application/json")
                .header("Testpay-Timestamp", String.valueOf(timestamp))
                .header("Testpay-Signature", signature)
                .body(body)
                .post("/webhooks/" + TestPayProvider.NAME);
    }
}
