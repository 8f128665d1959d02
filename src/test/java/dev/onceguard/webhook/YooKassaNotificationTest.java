package dev.onceguard.webhook;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.onceguard.payment.yookassa.WithYooKassa;
import dev.onceguard.payment.yookassa.YooKassaStub;
import dev.onceguard.webhook.Deliveries.Paid;
import io.agroal.api.AgroalDataSource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.restassured.response.Response;
import jakarta.inject.Inject;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static dev.onceguard.Database.count;
import static dev.onceguard.webhook.Deliveries.orderWithPayment;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * YooKassa notifications through {@code POST /webhooks/yookassa}: unsigned, so accepted only from YooKassa's networks
 * (named in {@code X-Forwarded-For} as the trusted proxy, the loopback, reports them), and settled only from what
 * reading the payment back through the API (the local stub) says.
 */
@QuarkusTest
@TestProfile(WithYooKassa.class)
class YooKassaNotificationTest {

    private static final String YOOKASSA_ADDRESS = "77.75.153.64";

    @Inject
    AgroalDataSource db;

    private static YooKassaStub yookassa() {
        return WithYooKassa.Stub.yookassa;
    }

    @AfterEach
    void answerLikeYooKassaAgain() {
        yookassa().answerLikeYooKassa();
    }

    /** Our payment, PENDING at YooKassa's 1500.00 RUB, which YooKassa reports as {@code status}. */
    private Paid paymentAtYooKassa(String status, String amount) {
        Paid paid = orderWithPayment(db, "yookassa", "REQUIRES_ACTION");
        yookassa().put(paid.providerPaymentId(), status, amount, "RUB", paid.paymentId(), paid.orderId());
        return paid;
    }

    private static String notification(String event, String providerPaymentId) {
        ObjectNode body = YooKassaStub.shape("notification-payment-succeeded.json");
        body.put("event", event);
        ((ObjectNode) body.get("object")).put("id", providerPaymentId);
        return body.toString();
    }

    private static Response deliver(String body, String from) {
        return given().contentType("application/json").header("X-Forwarded-For", from).body(body)
                .post("/webhooks/yookassa");
    }

    @Test
    void aNotificationFromYooKassaIsReadBackAndPaysTheOrderAndItsSourceAndReadBackAreKept() {
        Paid paid = paymentAtYooKassa("succeeded", "1500.00");

        Response response = deliver(notification("payment.succeeded", paid.providerPaymentId()), YOOKASSA_ADDRESS);

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.<String>path("status")).isEqualTo("processed");
        assertThat(count(db, "SELECT count(*) FROM orders WHERE order_id = ? AND status = 'PAID'", paid.orderId())).isEqualTo(1);
        assertThat(count(db, "SELECT count(*) FROM webhook_inbox WHERE provider = 'yookassa' AND event_id = ?"
                        + " AND status = 'PROCESSED' AND payment_id = ? AND payload ->> 'sourceAddress' = ?"
                        + " AND payload #>> '{readBack,status}' = 'succeeded'"
                        + " AND payload #>> '{notification,event}' = 'payment.succeeded'",
                "payment.succeeded:" + paid.providerPaymentId(), paid.paymentId(), YOOKASSA_ADDRESS)).isEqualTo(1);
        assertThat(yookassa().readsOf(paid.providerPaymentId())).isEqualTo(1);
    }

    @Test
    void aNotificationFromAForeignAddressIsRefusedAndChangesNothing() {
        Paid paid = paymentAtYooKassa("succeeded", "1500.00");
        long inboxRows = count(db, "SELECT count(*) FROM webhook_inbox");

        Response foreign = deliver(notification("payment.succeeded", paid.providerPaymentId()), "203.0.113.9");
        Response direct = given().contentType("application/json")
                .body(notification("payment.succeeded", paid.providerPaymentId())).post("/webhooks/yookassa");

        for (Response refused : new Response[]{foreign, direct}) {
            assertThat(refused.statusCode()).isEqualTo(401);
            assertThat(refused.<String>path("code")).isEqualTo("WEBHOOK_SOURCE_NOT_ALLOWED");
        }
        assertThat(count(db, "SELECT count(*) FROM webhook_inbox")).isEqualTo(inboxRows);
        assertThat(count(db, "SELECT count(*) FROM payments WHERE payment_id = ? AND status = 'REQUIRES_ACTION'",
                paid.paymentId())).isEqualTo(1);
        assertThat(yookassa().readsOf(paid.providerPaymentId())).as("a refused notification is not even read back")
                .isZero();
    }

    @Test
    void aNotificationThatLiesAboutTheStatusSettlesWhatTheApiSays() {
        Paid paid = paymentAtYooKassa("canceled", "1500.00");

        Response response = deliver(notification("payment.succeeded", paid.providerPaymentId()), YOOKASSA_ADDRESS);

        assertThat(response.<String>path("status")).isEqualTo("processed");
        assertThat(count(db, "SELECT count(*) FROM payments WHERE payment_id = ? AND status = 'CANCELED'",
                paid.paymentId())).isEqualTo(1);
        assertThat(count(db, "SELECT count(*) FROM orders WHERE order_id = ? AND status = 'PAID'", paid.orderId())).isZero();
    }

    @Test
    void aRepeatedNotificationIsADuplicateAndAppliesOnce() {
        Paid paid = paymentAtYooKassa("succeeded", "1500.00");
        String body = notification("payment.succeeded", paid.providerPaymentId());

        Response first = deliver(body, YOOKASSA_ADDRESS);
        Response again = deliver(body, "185.71.76.1");

        assertThat(first.<String>path("status")).isEqualTo("processed");
        assertThat(again.statusCode()).isEqualTo(200);
        assertThat(again.<String>path("status")).isEqualTo("duplicate");
        assertThat(count(db, "SELECT count(*) FROM state_transitions WHERE subject_type = 'order' AND subject_id = ?"
                + " AND to_status = 'PAID'", paid.orderId())).isEqualTo(1);
        assertThat(count(db, "SELECT count(*) FROM webhook_inbox WHERE provider = 'yookassa' AND event_id = ?"
                + " AND delivery_count = 2", "payment.succeeded:" + paid.providerPaymentId())).isEqualTo(1);
    }

    @Test
    void aPaymentWhoseAmountAtYooKassaIsNotOursIsRejected() {
        Paid paid = paymentAtYooKassa("succeeded", "1.00");

        Response response = deliver(notification("payment.succeeded", paid.providerPaymentId()), YOOKASSA_ADDRESS);

        assertThat(response.<String>path("status")).isEqualTo("rejected");
        assertThat(count(db, "SELECT count(*) FROM webhook_inbox WHERE provider = 'yookassa' AND event_id = ?"
                + " AND status = 'REJECTED' AND reason LIKE 'amount mismatch%'", "payment.succeeded:"
                + paid.providerPaymentId())).isEqualTo(1);
        assertThat(count(db, "SELECT count(*) FROM payments WHERE payment_id = ? AND status = 'REQUIRES_ACTION'",
                paid.paymentId())).isEqualTo(1);
    }

    @Test
    void aNotificationWhoseReadBackFailsIsKeptAndTheNextDeliveryAppliesIt() {
        Paid paid = paymentAtYooKassa("succeeded", "1500.00");
        String body = notification("payment.succeeded", paid.providerPaymentId());
        yookassa().answer((request, stub) -> YooKassaStub.Reply.json(500,
                YooKassaStub.shape("error-internal-server-error.json").toString()));

        Response failed = deliver(body, YOOKASSA_ADDRESS);
        long keptAsFailed = count(db, "SELECT count(*) FROM webhook_inbox WHERE provider = 'yookassa' AND event_id = ?"
                + " AND status = 'FAILED' AND last_error LIKE '%500%' AND payload ->> 'sourceAddress' = ?",
                "payment.succeeded:" + paid.providerPaymentId(), YOOKASSA_ADDRESS);
        yookassa().answerLikeYooKassa();
        Response redelivered = deliver(body, YOOKASSA_ADDRESS);

        assertThat(failed.statusCode()).isEqualTo(500);
        assertThat(failed.<String>path("code")).isEqualTo("WEBHOOK_READ_BACK_FAILED");
        assertThat(keptAsFailed).isEqualTo(1);
        assertThat(redelivered.<String>path("status")).isEqualTo("processed");
        assertThat(count(db, "SELECT count(*) FROM webhook_inbox WHERE provider = 'yookassa' AND event_id = ?"
                + " AND status = 'PROCESSED' AND payload #>> '{readBack,status}' = 'succeeded'"
                + " AND payload ->> 'readBackError' IS NULL", "payment.succeeded:" + paid.providerPaymentId()))
                .as("the delivery that applied it left its read-back in place of the failed one").isEqualTo(1);
        assertThat(count(db, "SELECT count(*) FROM orders WHERE order_id = ? AND status = 'PAID'", paid.orderId())).isEqualTo(1);
    }
}
