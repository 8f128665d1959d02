package dev.onceguard.console.browser;

import com.microsoft.playwright.Browser;
import com.microsoft.playwright.BrowserContext;
import com.microsoft.playwright.Page;
import com.microsoft.playwright.Playwright;
import com.microsoft.playwright.options.AriaRole;
import com.microsoft.playwright.options.LoadState;
import dev.onceguard.Database;
import dev.onceguard.PaidOrders;
import dev.onceguard.SandboxWebhooks;
import dev.onceguard.TestTokens;
import dev.onceguard.idempotency.RequestLog;
import dev.onceguard.maintenance.LeaseRecovery;
import io.agroal.api.AgroalDataSource;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.Response;
import jakarta.inject.Inject;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.net.URL;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.BooleanSupplier;

import static com.microsoft.playwright.assertions.PlaywrightAssertions.assertThat;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every console page, after its scripts ran, at 1280 and at 390 px, over data with replays, a key conflict, duplicate
 * webhook deliveries, a provider timeout settled by its webhook and a payment whose process died after the provider
 * committed the charge (finished by lease recovery): a {@code <tr>} holds only cells, a {@code <dl>} only
 * terms, descriptions and their groups, every body row has as many cells as its table's header, and nothing scrolls
 * sideways at a phone's width.
 */
@QuarkusTest
class ConsoleLayoutBrowserTest {

    private static final String CART = "{\"items\":[{\"productId\":\"p-184\",\"quantity\":1},{\"productId\":\"p-220\",\"quantity\":1}],\"currency\":\"RUB\"}";
    private static final String OTHER_CART = "{\"items\":[{\"productId\":\"p-184\",\"quantity\":2}],\"currency\":\"RUB\"}";

    /** The page's structural faults, each named by where it is; empty when the page lines up. */
    private static final String LAYOUT_FAULTS = """
            () => {
              const faults = [];
              const where = (element) => {
                const table = element.closest('table');
                const caption = table && table.querySelector('caption');
                const heading = element.closest('section') && element.closest('section').querySelector('h2, h3');
                return (caption ? caption.textContent.trim() : heading ? heading.textContent.trim() : element.tagName)
                    .replace(/\\s+/g, ' ').slice(0, 60);
              };
              document.querySelectorAll('tr').forEach((row) => {
                [...row.children].filter((child) => !['TD', 'TH'].includes(child.tagName)).forEach((child) =>
                    faults.push('<' + child.tagName.toLowerCase() + '> in a <tr> of "' + where(row) + '"'));
              });
              document.querySelectorAll('dl').forEach((list) => {
                [...list.children].filter((child) => !['DT', 'DD', 'DIV'].includes(child.tagName)).forEach((child) =>
                    faults.push('<' + child.tagName.toLowerCase() + '> in a <dl> of "' + where(list) + '"'));
              });
              const width = (row) => [...row.children].filter((c) => ['TD', 'TH'].includes(c.tagName))
                  .reduce((sum, cell) => sum + (cell.colSpan || 1), 0);
              document.querySelectorAll('table').forEach((table) => {
                const header = table.querySelector(':scope > thead > tr:last-child');
                if (!header) {
                  return;
                }
                const columns = width(header);
                table.querySelectorAll(':scope > tbody > tr').forEach((row, index) => {
                  const cells = [...row.children].length;
                  const span = width(row);
                  if (span !== columns || cells !== row.querySelectorAll(':scope > td, :scope > th').length) {
                    faults.push('row ' + (index + 1) + ' of "' + where(table) + '" has ' + cells + ' children spanning '
                        + span + ' columns under ' + columns + ' headers');
                  }
                });
              });
              return faults;
            }""";

    private static Playwright playwright;
    private static Browser browser;

    @TestHTTPResource("/")
    URL root;

    @Inject
    AgroalDataSource db;

    @Inject
    PaidOrders paidOrders;

    @Inject
    RequestLog requestLog;

    @Inject
    SandboxWebhooks sandboxWebhooks;

    @Inject
    LeaseRecovery leaseRecovery;

    @BeforeAll
    static void startChromium() {
        if (!SystemChromium.installed()) {
            SystemChromium.printSkipBanner();
            return;
        }
        playwright = SystemChromium.playwright();
        browser = SystemChromium.launch(playwright);
    }

    @BeforeEach
    void skipWithoutChromium() {
        SystemChromium.assumeInstalled();
    }

    @AfterAll
    static void stopChromium() {
        if (playwright != null) {
            playwright.close();
        }
    }

    @Test
    void everyPageLinesUpAt1280And390PixelsAfterItsScriptsRan() {
        String userId = "u-layout-" + UUID.randomUUID().toString().substring(0, 8);
        String key = "checkout-" + UUID.randomUUID();
        String orderId = createOrder(userId, key, CART).then().statusCode(201).extract().path("orderId");
        createOrder(userId, key, CART).then().statusCode(201).header("Idempotent-Replayed", "true");
        createOrder(userId, key, OTHER_CART).then().statusCode(422);
        // 201, or 202 when the sandbox's first answer of a cold start came after the provider timeout
        String duplicatesPayment = pay(userId, orderId, "tok_duplicate_webhooks").then()
                .statusCode(org.hamcrest.Matchers.oneOf(201, 202)).extract().path("paymentId");
        awaitTrue("three deliveries of " + duplicatesPayment, () -> {
            sandboxWebhooks.deliverDue();
            return Database.count(db, """
                    SELECT coalesce(max(w.delivery_count), 0) FROM webhook_inbox w
                      JOIN payments p ON p.provider = w.provider AND p.provider_payment_id = w.provider_payment_id
                     WHERE p.payment_id = ?""", duplicatesPayment) == 3
                    && Database.count(db, "SELECT count(*) FROM payments WHERE payment_id = ? AND status = 'SUCCEEDED'",
                            duplicatesPayment) == 1;
        });
        paidOrders.relayUntilIdle();

        String timeoutOrder = createOrder(userId, "checkout-" + UUID.randomUUID(), CART).then().statusCode(201)
                .extract().path("orderId");
        String timeoutPayment = pay(userId, timeoutOrder, "tok_timeout_after_commit").then().statusCode(202)
                .extract().path("paymentId");
        awaitTrue("the timed-out payment " + timeoutPayment + " settled by its webhook", () -> {
            sandboxWebhooks.deliverDueWithin(Duration.ofMinutes(5));
            return Database.count(db, "SELECT count(*) FROM payments WHERE payment_id = ? AND status = 'SUCCEEDED'",
                    timeoutPayment) == 1;
        });

        long crashedRecord = paymentWhoseProcessDiedAfterTheProviderCommitted(userId);
        requestLog.flush();

        Map<String, String> pages = new LinkedHashMap<>();
        pages.put("overview", "console");
        pages.put("operations", "console/operations");
        pages.put("order operation", "console/operations/" + recordOf(userId, key));
        pages.put("duplicate-webhooks payment", "console/operations/" + paymentRecordOf(duplicatesPayment));
        pages.put("timed-out payment", "console/operations/" + paymentRecordOf(timeoutPayment));
        pages.put("crashed payment", "console/operations/" + crashedRecord);
        pages.put("order", "console/orders/" + orderId);
        pages.put("timed-out order", "console/orders/" + timeoutOrder);
        pages.put("user", "console/users/" + userId);
        pages.put("search", "console/search?q=" + userId.substring(0, 10));
        pages.put("payments", "console/payments");
        pages.put("payment refunds", "console/payments/" + duplicatesPayment + "/refunds");
        pages.put("requests", "console/requests");
        pages.put("stuck", "console/stuck");
        pages.put("webhooks", "console/webhooks");
        pages.put("webhook event", "console/webhooks/" + Database.count(db, """
                SELECT min(w.id) FROM webhook_inbox w JOIN payments p
                    ON p.provider = w.provider AND p.provider_payment_id = w.provider_payment_id
                 WHERE p.payment_id = ?""", duplicatesPayment));
        pages.put("conflicts", "console/conflicts");
        pages.put("outbox", "console/outbox");
        pages.put("jobs", "console/jobs");
        pages.put("audit", "console/audit");
        pages.put("bulk preview", "console/bulk/stuck/reconcile");
        pages.put("bulk preview, nothing matching", "console/bulk/webhooks/reprocess?status=FAILED&provider=none");

        List<String> faults = new ArrayList<>();
        int[] copyButtons = {0};
        for (int width : new int[] {1280, 390}) {
            Browser.NewContextOptions options = new Browser.NewContextOptions().setViewportSize(width, 900);
            if (width < 400) {
                options.setDeviceScaleFactor(2).setIsMobile(true).setHasTouch(true);
            }
            try (BrowserContext context = browser.newContext(options)) {
                Page page = signIn(context);
                pages.forEach((name, path) -> {
                    com.microsoft.playwright.Response response = page.navigate(url(path));
                    assertThat(response.status()).as(path).isEqualTo(200);
                    page.waitForLoadState(LoadState.LOAD);
                    copyButtons[0] += page.locator("button.copy").count();
                    ((List<?>) page.evaluate(LAYOUT_FAULTS)).forEach(fault -> faults.add(width + " px, " + name + ": " + fault));
                    if (width < 400) {
                        List<?> widths = (List<?>) page.evaluate(
                                "() => [document.documentElement.scrollWidth, window.innerWidth]");
                        int scrolled = ((Number) widths.get(0)).intValue() - ((Number) widths.get(1)).intValue();
                        if (scrolled > 0) {
                            faults.add(width + " px, " + name + ": scrolls " + scrolled + " px sideways");
                        }
                    }
                });
            }
        }
        assertThat(copyButtons[0]).as("copy buttons the console's script added (it ran)").isGreaterThan(20);
        assertThat(faults).as("layout faults on the console's pages").isEmpty();
    }

    @Test
    void aCopyButtonShowsAnIconOfItsOwnAndSitsInTheCellItCopiesFrom() {
        String userId = "u-layout-" + UUID.randomUUID().toString().substring(0, 8);
        String key = "checkout-" + UUID.randomUUID();
        createOrder(userId, key, CART).then().statusCode(201);

        try (BrowserContext context = browser.newContext(new Browser.NewContextOptions().setViewportSize(1280, 900))) {
            Page page = signIn(context);
            page.navigate(url("console/operations/" + recordOf(userId, key)));
            var copy = page.locator("dd button.copy").first();
            assertThat(copy).isVisible();
            assertThat((String) copy.evaluate("b => b.closest('dd').previousElementSibling.textContent"))
                    .as("the term before the description holding the button").isEqualTo("Key");
            assertThat(copy.locator("svg")).hasCount(1);
            assertThat((String) copy.evaluate("b => getComputedStyle(b, '::before').content"))
                    .as("no character the page's fonts may lack").isIn("none", "normal");
            assertThat(copy.boundingBox().width).as("the icon has a size").isGreaterThan(8);
        }
    }

    /**
     * A payment whose process died after the provider committed the charge and before anything was answered: the
     * payment row and the sandbox's charge under its provider key, the record PROCESSING at {@code payment_created}
     * with its lease long expired, then a lease-recovery run that finishes it.
     */
    private long paymentWhoseProcessDiedAfterTheProviderCommitted(String userId) {
        String orderId = createOrder(userId, "checkout-" + UUID.randomUUID(), CART).then().statusCode(201)
                .extract().path("orderId");
        String paymentId = "pay_" + UUID.randomUUID();
        Database.execute(db, """
                INSERT INTO payments (payment_id, order_id, user_id, status, amount, currency, provider,
                    provider_idempotency_key, payment_method_token, created_at, updated_at)
                SELECT ?, order_id, user_id, 'CREATED', total, currency, 'sandbox', ?, 'tok_success',
                       now() - interval '1 minute', now() - interval '1 minute'
                  FROM orders WHERE order_id = ?""", paymentId, "onceguard-" + paymentId, orderId);
        String total = Database.single(db, String.class, "SELECT total::text FROM orders WHERE order_id = ?", orderId);
        given().header("Idempotency-Key", "onceguard-" + paymentId).contentType("application/json")
                .body("{\"amount\":\"" + total + "\",\"currency\":\"RUB\",\"paymentMethodToken\":\"tok_success\","
                        + "\"metadata\":{\"order_id\":\"" + orderId + "\",\"payment_id\":\"" + paymentId + "\"}}")
                .post("/sandbox/v1/payments").then().statusCode(201);
        Database.execute(db, """
                INSERT INTO idempotency_records (user_id, operation, idempotency_key, fingerprint, status, recovery_point,
                    lease_expires_at, resource_type, resource_id, request_id, created_at, expires_at)
                VALUES (?, 'create-payment', ?, repeat('b', 64), 'PROCESSING', 'payment_created',
                        now() - interval '30 seconds', 'payment', ?, ?, now() - interval '1 minute', now() + interval '1 day')""",
                userId, "pay-" + UUID.randomUUID(), paymentId, "req-crashed-" + UUID.randomUUID());
        Database.execute(db, "UPDATE payments SET idempotency_record_id = (SELECT id FROM idempotency_records "
                + "WHERE resource_id = ? AND operation = 'create-payment') WHERE payment_id = ?", paymentId, paymentId);
        leaseRecovery.runNow();
        assertThat(Database.count(db, "SELECT count(*) FROM payments WHERE payment_id = ? AND status = 'SUCCEEDED'",
                paymentId)).as("lease recovery finished the payment").isEqualTo(1);
        return paymentRecordOf(paymentId);
    }

    private Response createOrder(String userId, String key, String body) {
        return given().header("Authorization", TestTokens.bearer(userId)).contentType("application/json")
                .header("Idempotency-Key", key).body(body).post("/api/orders");
    }

    private Response pay(String userId, String orderId, String token) {
        return given().header("Authorization", TestTokens.bearer(userId)).contentType("application/json")
                .header("Idempotency-Key", "pay-" + UUID.randomUUID())
                .body("{\"paymentMethodToken\":\"" + token + "\"}")
                .post("/api/orders/" + orderId + "/payments");
    }

    private long recordOf(String userId, String key) {
        return Database.count(db, "SELECT id FROM idempotency_records WHERE user_id = ? AND idempotency_key = ?", userId, key);
    }

    private long paymentRecordOf(String paymentId) {
        return Database.count(db, "SELECT idempotency_record_id FROM payments WHERE payment_id = ?", paymentId);
    }

    private Page signIn(BrowserContext context) {
        Page page = context.newPage();
        page.navigate(url("console"));
        page.getByLabel("User name").fill("admin");
        page.getByLabel("Password").fill("admin-password");
        page.getByRole(AriaRole.BUTTON, new Page.GetByRoleOptions().setName("Sign in")).click();
        assertThat(page).hasURL(url("console"));
        return page;
    }

    private String url(String path) {
        return root.toString() + path;
    }

    private static void awaitTrue(String what, BooleanSupplier condition) {
        Instant deadline = Instant.now().plus(Duration.ofSeconds(30));
        while (!condition.getAsBoolean()) {
            if (Instant.now().isAfter(deadline)) {
                throw new AssertionError("not within 30 s: " + what);
            }
            try {
                Thread.sleep(200);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted while waiting: " + what, e);
            }
        }
    }
}
