package dev.onceguard.console;

import dev.onceguard.SandboxWebhooks;
import dev.onceguard.Database;
import dev.onceguard.TestTokens;
import io.agroal.api.AgroalDataSource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static dev.onceguard.console.InvestigationPages.ONE_EBOOK;
import static dev.onceguard.console.InvestigationPages.createOrder;
import static dev.onceguard.console.InvestigationPages.page;
import static dev.onceguard.console.InvestigationPages.pay;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code /console/webhooks/{id}}: a sandbox event delivered several times at once, through the real API and the
 * sandbox's delivery worker, shown with every delivery and its answer, its signature scheme, its payload and links
 * to its payment, order and user; secrets in a payload are never shown.
 */
@QuarkusTest
class ConsoleWebhookEventPageTest {

    private static final Pattern DELIVERY = Pattern.compile("<td>(\\w+)</td>\\s*<td class=\"num\">200</td>");

    @Inject
    AgroalDataSource db;

    @Inject
    SandboxWebhooks sandboxWebhooks;


    @Test
    void anEventDeliveredSeveralTimesShowsEachDeliveryItsSchemeAndWhatItIsAbout() {
        String user = TestTokens.newUser();
        String orderId = createOrder(user, UUID.randomUUID().toString(), ONE_EBOOK).then().statusCode(201)
                .extract().path("orderId");
        String paymentKey = UUID.randomUUID().toString();
        String paymentId = pay(user, orderId, paymentKey, "tok_duplicate_webhooks").then().statusCode(201)
                .extract().path("paymentId");
        sandboxWebhooks.deliverDueWithin(Duration.ofMinutes(5));
        long inboxId = Database.count(db, """
                SELECT w.id FROM webhook_inbox w JOIN payments p
                    ON p.provider = w.provider AND p.provider_payment_id = w.provider_payment_id
                 WHERE p.payment_id = ? ORDER BY w.id LIMIT 1""", paymentId);
        long deliveryCount = Database.count(db, "SELECT delivery_count FROM webhook_inbox WHERE id = ?", inboxId);
        long recordId = Database.count(db, "SELECT id FROM idempotency_records WHERE idempotency_key = ?", paymentKey);

        String html = page("/console/webhooks/" + inboxId, 200);

        Matcher deliveries = DELIVERY.matcher(html);
        int firsts = 0;
        int duplicates = 0;
        while (deliveries.find()) {
            if (deliveries.group(1).equals("duplicate")) {
                duplicates++;
            } else {
                firsts++;
            }
        }
        assertThat(deliveryCount).isGreaterThanOrEqualTo(3);
        assertThat(firsts).as("deliveries answered as the first").isEqualTo(1);
        assertThat(duplicates).as("deliveries answered as duplicates").isEqualTo(deliveryCount - 1);
        assertThat(html).contains("Standard Webhooks")
                .contains("id=\"link-payment\" href=\"/console/operations/" + recordId + "\">" + paymentId)
                .contains("id=\"link-order\" href=\"/console/orders/" + orderId + "\"")
                .contains("id=\"link-user\" href=\"/console/users/" + user + "\"")
                .doesNotContain("whsec_");
        assertThat(page("/console/webhooks", 200)).contains("href=\"/console/webhooks/" + inboxId + "\"");
    }

    @Test
    void aSecretInThePayloadIsNeverShown() {
        String eventId = "evt_" + UUID.randomUUID();
        Database.execute(db, """
                INSERT INTO webhook_inbox (provider, event_id, event_type, payload, status, received_at, last_delivered_at)
                VALUES ('stripe', ?, 'payment_intent.succeeded', ?::jsonb, 'IGNORED', now(), now())""", eventId,
                "{\"id\":\"" + eventId + "\",\"data\":{\"object\":{\"id\":\"pi_1\",\"client_secret\":\"pi_1_secret_abc\","
                        + "\"amount\":150000}}}");
        long inboxId = Database.count(db, "SELECT id FROM webhook_inbox WHERE event_id = ?", eventId);

        String html = page("/console/webhooks/" + inboxId, 200);

        assertThat(html).doesNotContain("pi_1_secret_abc").contains("&quot;client_secret&quot; : &quot;[not shown]&quot;")
                .contains("&quot;amount&quot; : 150000").contains("Stripe-Signature v1")
                .contains("No delivery of this event is logged");
        assertThat(page("/console/webhooks/999999999", 404)).contains("There is no webhook event 999999999");
    }
}
