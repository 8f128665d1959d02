package dev.onceguard.checkout;

import dev.onceguard.TestTokens;
import io.agroal.api.AgroalDataSource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.Response;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

import java.util.UUID;

import static dev.onceguard.Database.count;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;

/** {@code POST /api/orders/{orderId}/cancellation} by the order's owner. */
@QuarkusTest
class OrderCancellationTest {

    private static final String KEYBOARD = "p-310";

    @Inject
    AgroalDataSource db;

    private final String owner = TestTokens.newUser();

    private String newOrder(String productId, int quantity) {
        return given().header("Authorization", TestTokens.bearer(owner))
                .header("Idempotency-Key", UUID.randomUUID().toString()).contentType("application/json")
                .body("{\"items\":[{\"productId\":\"" + productId + "\",\"quantity\":" + quantity
                        + "}],\"currency\":\"RUB\"}")
                .post("/api/orders").then().statusCode(201).extract().path("orderId");
    }

    private Response cancel(String user, String orderId, String key) {
        return given().header("Authorization", TestTokens.bearer(user)).header("Idempotency-Key", key)
                .contentType("application/json").body("{}").post("/api/orders/" + orderId + "/cancellation");
    }

    private long stockOfKeyboard() {
        return count(db, "SELECT stock FROM products WHERE product_id = ?", KEYBOARD);
    }

    @Test
    void cancellationReturnsTheStockOnceAndIsReplayed() {
        String orderId = newOrder(KEYBOARD, 2);
        long reserved = stockOfKeyboard();
        String key = UUID.randomUUID().toString();

        Response canceled = cancel(owner, orderId, key);
        long afterCancel = stockOfKeyboard();
        Response replay = cancel(owner, orderId, key);
        Response again = cancel(owner, orderId, UUID.randomUUID().toString());
        Response pay = given().header("Authorization", TestTokens.bearer(owner))
                .header("Idempotency-Key", UUID.randomUUID().toString()).contentType("application/json")
                .body("{\"paymentMethodToken\":\"tok_success\"}").post("/api/orders/" + orderId + "/payments");

        assertThat(canceled.statusCode()).as(canceled.asString()).isEqualTo(200);
        assertThat(canceled.<String>path("status")).isEqualTo("CANCELED");
        assertThat(canceled.<String>path("orderId")).isEqualTo(orderId);
        assertThat(afterCancel).isEqualTo(reserved + 2);
        assertThat(replay.statusCode()).isEqualTo(200);
        assertThat(replay.header("Idempotent-Replayed")).isEqualTo("true");
        assertThat(replay.asByteArray()).isEqualTo(canceled.asByteArray());
        assertThat(again.statusCode()).isEqualTo(409);
        assertThat(again.<String>path("code")).isEqualTo("ORDER_NOT_CANCELABLE");
        assertThat(stockOfKeyboard()).isEqualTo(afterCancel);
        assertThat(pay.statusCode()).isEqualTo(409);
        assertThat(pay.<String>path("code")).isEqualTo("ORDER_NOT_PAYABLE");
        assertThat(count(db, "SELECT count(*) FROM state_transitions WHERE subject_type = 'order' AND subject_id = ?"
                + " AND to_status = 'CANCELED' AND cause = 'request'", orderId)).isEqualTo(1);
    }

    @Test
    void anOrderWithAnAttemptInFlightOrPaidCannotBeCanceled() {
        String pendingOrder = newOrder("p-184", 1);
        // PENDING (201), or UNKNOWN (202) on a machine too busy for the sandbox to answer in time: in flight either way
        int paid = given().header("Authorization", TestTokens.bearer(owner))
                .header("Idempotency-Key", UUID.randomUUID().toString()).contentType("application/json")
                .body("{\"paymentMethodToken\":\"tok_pending\"}").post("/api/orders/" + pendingOrder + "/payments")
                .statusCode();
        assertThat(paid).isIn(201, 202);

        Response inFlight = cancel(owner, pendingOrder, UUID.randomUUID().toString());

        assertThat(inFlight.statusCode()).isEqualTo(409);
        assertThat(inFlight.<String>path("code")).isEqualTo("PAYMENT_ATTEMPT_UNRESOLVED");
        assertThat(count(db, "SELECT count(*) FROM orders WHERE order_id = ? AND status = 'AWAITING_PAYMENT'",
                pendingOrder)).isEqualTo(1);
    }

    @Test
    void anotherUsersOrderIsNotFoundAndNothingIsStored() {
        String orderId = newOrder(KEYBOARD, 1);
        String stranger = TestTokens.newUser();
        String key = UUID.randomUUID().toString();

        Response refused = cancel(stranger, orderId, key);

        assertThat(refused.statusCode()).isEqualTo(404);
        assertThat(refused.<String>path("code")).isEqualTo("ORDER_NOT_FOUND");
        assertThat(count(db, "SELECT count(*) FROM idempotency_records WHERE user_id = ?", stranger)).isZero();
        assertThat(count(db, "SELECT count(*) FROM orders WHERE order_id = ? AND status = 'AWAITING_PAYMENT'", orderId))
                .isEqualTo(1);
        cancel(owner, orderId, UUID.randomUUID().toString()).then().statusCode(200);
    }

    @Test
    void anEmptyJsonBodyIsReadAsAnEmptyObjectAndABodyWithoutContentTypeIsRefusedClearly() {
        String orderId = newOrder(KEYBOARD, 1);
        given().header("Authorization", TestTokens.bearer(owner))
                .header("Idempotency-Key", UUID.randomUUID().toString())
                .post("/api/orders/" + orderId + "/cancellation")
                .then().statusCode(415).contentType("application/problem+json")
                .body("code", org.hamcrest.Matchers.equalTo("UNSUPPORTED_MEDIA_TYPE"));
        assertThat(count(db, "SELECT count(*) FROM orders WHERE order_id = ? AND status = 'AWAITING_PAYMENT'", orderId))
                .isEqualTo(1);

        given().header("Authorization", TestTokens.bearer(owner))
                .header("Idempotency-Key", UUID.randomUUID().toString()).contentType("application/json")
                .post("/api/orders/" + orderId + "/cancellation")
                .then().statusCode(200).body("status", org.hamcrest.Matchers.equalTo("CANCELED"));
    }
}
