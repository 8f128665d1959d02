package dev.onceguard.console;

import dev.onceguard.SandboxWebhooks;
import dev.onceguard.Database;
import dev.onceguard.TestTokens;
import dev.onceguard.platform.Jobs;
import dev.onceguard.idempotency.RequestLog;
import io.agroal.api.AgroalDataSource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static dev.onceguard.console.InvestigationPages.ONE_EBOOK;
import static dev.onceguard.console.InvestigationPages.TWO_EBOOKS;
import static dev.onceguard.console.InvestigationPages.createOrder;
import static dev.onceguard.console.InvestigationPages.page;
import static dev.onceguard.console.InvestigationPages.pay;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** The overview's numbers and charts follow what happened, read from the request and delivery logs and the partial indexes. */
@QuarkusTest
class ConsoleOverviewTest {

    private static final Pattern COUNT = Pattern.compile("id=\"count-([a-z-]+)\"[^>]*>(\\d+)<");
    private static final Pattern DEAD = Pattern.compile(">(\\d+) dead</a>");

    @Inject
    AgroalDataSource db;

    @Inject
    RequestLog requestLog;

    @Inject
    Jobs jobs;

    @Inject
    SandboxWebhooks sandboxWebhooks;


    @Inject
    ConsoleReads sql;

    private final String user = TestTokens.newUser();

    private static Map<String, Long> numbers(String html) {
        Map<String, Long> numbers = new HashMap<>();
        for (Matcher count = COUNT.matcher(html); count.find(); ) {
            numbers.put(count.group(1), Long.parseLong(count.group(2)));
        }
        Matcher dead = DEAD.matcher(html);
        assertThat(dead.find()).isTrue();
        numbers.put("dead", Long.parseLong(dead.group(1)));
        return numbers;
    }

    private long duplicateDeliveriesOf(String orderId) {
        return Database.count(db, """
                SELECT count(*) FROM webhook_deliveries d JOIN webhook_inbox w ON w.id = d.inbox_id
                  JOIN payments p ON p.provider = w.provider AND p.provider_payment_id = w.provider_payment_id
                 WHERE p.order_id = ? AND d.outcome = 'duplicate'""", orderId);
    }

    @Test
    void eachNumberFollowsWhatHappenedAndLinksToItsList() throws InterruptedException {
        requestLog.flush();
        Map<String, Long> before = numbers(page("/console", 200));

        String key = UUID.randomUUID().toString();
        String orderId = createOrder(user, key, ONE_EBOOK).then().statusCode(201).extract().path("orderId");
        createOrder(user, key, ONE_EBOOK).then().statusCode(201);
        createOrder(user, key, TWO_EBOOKS).then().statusCode(422);
        pay(user, orderId, UUID.randomUUID().toString(), "tok_duplicate_webhooks").then().statusCode(201);
        await().pollInSameThread().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(50)).until(() -> {
            sandboxWebhooks.deliverDue();
            return duplicateDeliveriesOf(orderId) >= 2;
        });
        Database.execute(db, """
                INSERT INTO idempotency_records (user_id, operation, idempotency_key, fingerprint, status, recovery_point,
                    lease_expires_at, request_id, created_at, expires_at)
                VALUES (?, 'create-order', ?, repeat('d', 64), 'PROCESSING', 'started', now() - interval '1 minute',
                        'req-stuck', now() - interval '2 minutes', now() + interval '1 day')""", user, UUID.randomUUID().toString());
        String unknownOrder = createOrder(user, UUID.randomUUID().toString(), ONE_EBOOK).then().statusCode(201)
                .extract().path("orderId");
        String unknownPayment = "pay_console_" + UUID.randomUUID();
        Database.execute(db, """
                INSERT INTO payments (payment_id, order_id, user_id, status, amount, currency, provider,
                    provider_idempotency_key, payment_method_token, created_at, updated_at)
                VALUES (?, ?, ?, 'UNKNOWN', 1500.00, 'RUB', 'sandbox', ?, 'tok_success', now() - interval '20 minutes',
                        now() - interval '20 minutes')""",
                unknownPayment, unknownOrder, user, "onceguard-console-" + UUID.randomUUID());
        Database.execute(db, """
                INSERT INTO outbox_events (event_type, aggregate_type, aggregate_id, payload, status, attempts,
                    next_attempt_at, last_error, created_at)
                VALUES ('ORDER_PAID', 'order', ?, '{}', 'DEAD', 10, now(), 'handler failed', now())""",
                "ord_console_" + UUID.randomUUID());
        jobs.run(Jobs.LEASE_RECOVERY, true, () -> Map.of("released", 0L));
        requestLog.flush();
        String html = page("/console", 200);
        Map<String, Long> after = numbers(html);
        // made without an operation behind it, it must not reach the reconciliation runs of other tests
        Database.execute(db, "DELETE FROM payments WHERE payment_id = ?", unknownPayment);

        assertThat(after.get("executed") - before.get("executed")).isEqualTo(3);
        assertThat(after.get("replayed") - before.get("replayed")).isEqualTo(1);
        assertThat(after.get("conflict") - before.get("conflict")).isEqualTo(1);
        assertThat(after.get("duplicate") - before.get("duplicate")).isGreaterThanOrEqualTo(2);
        assertThat(after.get("stuck") - before.get("stuck")).isEqualTo(1);
        assertThat(after.get("unknown") - before.get("unknown")).isEqualTo(1);
        assertThat(after.get("unknown-old") - before.get("unknown-old")).isEqualTo(1);
        assertThat(after.get("dead") - before.get("dead")).isEqualTo(1);
        assertThat(html).contains("href=\"/console/stuck\">" + after.get("stuck") + "<")
                .contains("CONFLICT\">" + after.get("conflict") + "<")
                .contains("href=\"/console/payments?status=UNKNOWN\">" + after.get("unknown") + "<")
                .contains("href=\"/console/outbox?status=DEAD\">" + after.get("dead") + " dead<")
                .contains("href=\"/console/jobs?job=lease-recovery\"");
        String leaseRecoveryRow = html.substring(html.indexOf("/console/jobs?job=lease-recovery"));
        assertThat(leaseRecoveryRow.substring(0, leaseRecoveryRow.indexOf("</tr>"))).contains("SUCCEEDED");
    }

    @Test
    void theChartsDrawTwentyFourHourlyBarsAndSayWhatTheyShow() {
        createOrder(user, UUID.randomUUID().toString(), ONE_EBOOK).then().statusCode(201);
        requestLog.flush();
        long executed = sql.one("""
                        SELECT count(*) FROM idempotency_request_log
                         WHERE outcome = 'EXECUTED' AND received_at >= date_trunc('hour', now()) - interval '23 hours'""",
                row -> row.getLong(1)).orElseThrow();

        String html = page("/console", 200);

        assertThat(executed).isPositive();
        assertThat(html.split("<rect class=\"bar\"", -1)).hasSize(4 * 24 + 1);
        assertThat(html).contains("<desc id=\"chart-executed-desc\">Executed requests: " + executed + " in the last 24 hours;")
                .contains("<title id=\"chart-executed-title\">Executed requests per hour, last 24 hours</title>")
                .contains("role=\"img\" aria-labelledby=\"chart-executed-title chart-executed-desc\"")
                .contains("<caption>Counts per hour (UTC), oldest first</caption>")
                .doesNotContain("style=");
        for (String chart : List.of("chart-replayed", "chart-conflict", "chart-duplicate")) {
            assertThat(html).contains("<desc id=\"" + chart + "-desc\">");
        }
    }
}
