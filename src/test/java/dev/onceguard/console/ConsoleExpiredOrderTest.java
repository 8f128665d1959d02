package dev.onceguard.console;

import dev.onceguard.TestTokens;
import dev.onceguard.checkout.UnpaidOrderExpiry;
import io.agroal.api.AgroalDataSource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

import java.util.UUID;

import static dev.onceguard.Database.execute;
import static dev.onceguard.console.InvestigationPages.ONE_EBOOK;
import static dev.onceguard.console.InvestigationPages.asSupport;
import static dev.onceguard.console.InvestigationPages.createOrder;
import static org.assertj.core.api.Assertions.assertThat;

/** An order that expired unpaid, as support finds it: its status, the job run that expired it, and that job's runs. */
@QuarkusTest
class ConsoleExpiredOrderTest {

    @Inject
    AgroalDataSource db;

    @Inject
    UnpaidOrderExpiry expiry;

    @Test
    void theOrderPageShowsEXPIREDAndLinksTheRunThatExpiredIt() {
        String user = TestTokens.newUser();
        String orderId = createOrder(user, UUID.randomUUID().toString(), ONE_EBOOK).then().statusCode(201)
                .extract().path("orderId");
        execute(db, "UPDATE orders SET created_at = now() - interval '31 minutes' WHERE order_id = ?", orderId);
        expiry.runNow();

        String order = asSupport().get("/console/orders/" + orderId).then().statusCode(200).extract().asString();
        String userPage = asSupport().get("/console/users/" + user).then().statusCode(200).extract().asString();
        String jobs = asSupport().queryParam("job", "unpaid-order-expiry").get("/console/jobs")
                .then().statusCode(200).extract().asString();

        assertThat(order).contains(": EXPIRED").contains("AWAITING_PAYMENT → EXPIRED")
                .containsPattern("<a href=\"/console/jobs\\?job=unpaid-order-expiry\">"
                        + "unpaid order expiry, run \\d+</a>");
        assertThat(userPage).contains(">EXPIRED</span>");
        assertThat(jobs).contains("unpaid-order-expiry").contains("expired");
    }
}
