package dev.onceguard.console;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.onceguard.Database;
import dev.onceguard.TestTokens;
import dev.onceguard.payment.yookassa.WithYooKassa;
import dev.onceguard.payment.yookassa.YooKassaStub;
import io.agroal.api.AgroalDataSource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

import java.util.UUID;

import static dev.onceguard.console.InvestigationPages.ONE_EBOOK;
import static dev.onceguard.console.InvestigationPages.asSupport;
import static dev.onceguard.console.InvestigationPages.createOrder;
import static dev.onceguard.console.InvestigationPages.page;
import static dev.onceguard.console.InvestigationPages.pay;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A YooKassa payment (the local stub) in the console: its YooKassa id opens its operation, and its notification's page shows the
 * address it came from and what reading the payment back through YooKassa's API answered.
 */
@QuarkusTest
@TestProfile(WithYooKassa.class)
class ConsoleYooKassaTest {

    @Inject
    AgroalDataSource db;

    @Test
    void aYooKassaPaymentIsFoundByItsIdAndItsNotificationShowsItsSourceAndReadBack() {
        String user = TestTokens.newUser();
        String orderId = createOrder(user, UUID.randomUUID().toString(), ONE_EBOOK).then().statusCode(201)
                .extract().path("orderId");
        String yookassaId = pay(user, orderId, UUID.randomUUID().toString(), "yookassa_redirect").then().statusCode(202)
                .extract().path("providerPaymentId");
        WithYooKassa.Stub.yookassa.settle(yookassaId, "succeeded");
        ObjectNode notification = YooKassaStub.shape("notification-payment-succeeded.json");
        ((ObjectNode) notification.get("object")).put("id", yookassaId);
        given().contentType("application/json").header("X-Forwarded-For", "185.71.77.30").body(notification.toString())
                .post("/webhooks/yookassa").then().statusCode(200);
        long inboxId = Database.count(db, "SELECT id FROM webhook_inbox WHERE provider = 'yookassa' AND event_id = ?",
                "payment.succeeded:" + yookassaId);

        String event = page("/console/webhooks/" + inboxId, 200);
        String found = asSupport().queryParam("q", yookassaId).get("/console/search").then().statusCode(303)
                .extract().header("Location");
        long recordId = Database.count(db, "SELECT idempotency_record_id FROM payments WHERE provider_payment_id = ?",
                yookassaId);

        assertThat(event).contains("YooKassa signs nothing")
                .contains("id=\"source-address\">185.71.77.30<")
                .contains("id=\"read-back\">succeeded, 1500.00 RUB<")
                .contains("id=\"link-order\" href=\"/console/orders/" + orderId + "\"");
        assertThat(found).as("the only match, the payment, opens at once").endsWith("/console/operations/" + recordId);
    }
}
