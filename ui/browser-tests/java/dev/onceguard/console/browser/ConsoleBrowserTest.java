package dev.onceguard.console.browser;

import com.microsoft.playwright.Browser;
import com.microsoft.playwright.BrowserContext;
import com.microsoft.playwright.Locator;
import com.microsoft.playwright.Page;
import com.microsoft.playwright.Playwright;
import com.microsoft.playwright.options.AriaRole;
import dev.onceguard.SandboxWebhooks;
import dev.onceguard.Database;
import dev.onceguard.PaidOrders;
import dev.onceguard.TestTokens;
import dev.onceguard.idempotency.RequestLog;
import io.agroal.api.AgroalDataSource;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.Response;
import jakarta.inject.Inject;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.URL;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.nio.file.Files;
import java.nio.file.Path;
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
 * The console in a real browser (Debian's Chromium, headless): an investigation by a support user, an admin action
 * taken with the keyboard, and every page at a phone's width. Skipped, loudly, when Chromium is not installed.
 * Screenshots go to {@code target/screenshots/}; with {@code -Donceguard.screenshots.update=true} the operation
 * detail also replaces the README's {@code ui/screenshots/console-operation-detail.png}.
 */
@QuarkusTest
class ConsoleBrowserTest {

    private static final Path SCREENSHOTS = Path.of("target", "screenshots");
    private static final Path README_SCREENSHOT = Path.of("ui", "screenshots", "console-operation-detail.png");
    private static final String CART = "{\"items\":[{\"productId\":\"p-184\",\"quantity\":1},{\"productId\":\"p-220\",\"quantity\":1}],\"currency\":\"RUB\"}";
    private static final String OTHER_CART = "{\"items\":[{\"productId\":\"p-184\",\"quantity\":2}],\"currency\":\"RUB\"}";

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


    @BeforeAll
    static void startChromium() throws IOException {
        if (!SystemChromium.installed()) {
            SystemChromium.printSkipBanner();
            return;
        }
        Files.createDirectories(SCREENSHOTS);
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
    void supportFindsAKeyAndReadsTheVerdictOfItsChain() {
        Purchase purchase = paidAndRetriedPurchase();

        try (BrowserContext context = browser.newContext(new Browser.NewContextOptions().setViewportSize(1280, 900))) {
            Page page = signIn(context, "support", "support-password");
            page.locator("nav[aria-label='Console sections']").getByRole(AriaRole.LINK,
                    new Locator.GetByRoleOptions().setName("Operations").setExact(true)).click();
            page.getByLabel("Idempotency key").fill(purchase.key());
            page.getByRole(AriaRole.BUTTON, new Page.GetByRoleOptions().setName("Search").setExact(true)).click();
            assertThat(page.locator("tbody tr")).hasCount(1);
            page.getByRole(AriaRole.LINK, new Page.GetByRoleOptions().setName(purchase.key())).click();

            assertThat(page).hasURL(url("console/operations/" + recordIdOf(purchase.userId(), purchase.key())));
            Locator verdict = page.locator("#verdict");
            assertThat(verdict).containsText("One intent, retried 2 times: one order, one charge.");
            assertThat(verdict).containsText("The provider delivered webhook events 2 extra times");
            assertThat(verdict).containsText("One license issued.");
            assertThat(page.locator(".timeline li").first()).isVisible();
            assertThat(page.getByText(purchase.orderId()).first()).isVisible();
            String paymentId = paymentOf(purchase.orderId());
            Locator paymentRow = page.locator("tbody th").filter(new Locator.FilterOptions().setHasText(paymentId));
            assertThat(paymentRow.evaluate("cell => cell.innerText.trim()"))
                    .as("an id as the page renders it, to be copied into a ticket or a query").isEqualTo(paymentId);

            screenshot(page, "operation-detail-1280");
            if (Boolean.getBoolean("onceguard.screenshots.update")) {
                double timelineBottom = (Double) page.locator("section:has(> #timeline-heading)")
                        .evaluate("section => section.getBoundingClientRect().bottom + window.scrollY");
                page.screenshot(new Page.ScreenshotOptions().setPath(README_SCREENSHOT).setFullPage(true)
                        .setClip(0, 0, 1280, Math.ceil(timelineBottom) + 24));
            }
        }
    }

    @Test
    void adminReleasesAStuckOperationWithTheKeyboardAndTheAuditLogRecordsIt() {
        long recordId = stuckOperation();

        try (BrowserContext context = browser.newContext(new Browser.NewContextOptions().setViewportSize(1280, 900))) {
            Page page = signIn(context, "admin", "admin-password");
            page.navigate(url("console/stuck"));
            Locator release = page.getByRole(AriaRole.BUTTON,
                    new Page.GetByRoleOptions().setName("Release operation " + recordId).setExact(true));
            assertThat(release).isVisible();
            Locator reason = page.getByRole(AriaRole.TEXTBOX,
                    new Page.GetByRoleOptions().setName("Reason: Release operation " + recordId).setExact(true));

            assertThat(tabsUntilFocused(page, reason, 80)).as("Tab presses from the top of the page to the reason field")
                    .isLessThanOrEqualTo(80);
            page.keyboard().type("customer asked to pay again with the same key");
            page.keyboard().press("Tab");
            assertThat(release).isFocused();
            screenshot(page, "stuck-release-focused");

            page.onDialog(dialog -> {
                assertThat(dialog.message()).contains("Release operation " + recordId);
                dialog.accept();
            });
            page.keyboard().press("Enter");

            Locator notice = page.locator(".notice[role='status']");
            assertThat(notice).containsText("Operation " + recordId + " released");
            assertThat(Database.count(db, "SELECT count(*) FROM idempotency_records WHERE id = ?", recordId)).isZero();
            screenshot(page, "stuck-released");

            page.locator("nav[aria-label='Console sections']").getByRole(AriaRole.LINK,
                    new Locator.GetByRoleOptions().setName("Audit").setExact(true)).click();
            Locator newest = page.locator("tbody tr").first();
            assertThat(newest).containsText("admin");
            assertThat(newest).containsText("release");
            assertThat(newest).containsText("customer asked to pay again with the same key");
            assertThat(newest).containsText(String.valueOf(recordId));
            assertThat(newest).containsText("done");
            screenshot(page, "audit");
        }
    }

    @Test
    void everyPageFitsA390PixelScreenWithoutAnErrorInTheConsole() {
        Purchase purchase = paidAndRetriedPurchase();
        keyReusedWithAnotherCart();
        stuckOperation();
        Map<String, String> pages = new LinkedHashMap<>();
        pages.put("overview", "console");
        pages.put("operations", "console/operations");
        pages.put("operation-detail", "console/operations/" + recordIdOf(purchase.userId(), purchase.key()));
        pages.put("user", "console/users/" + purchase.userId());
        pages.put("stuck", "console/stuck");
        pages.put("webhooks", "console/webhooks");
        pages.put("conflicts", "console/conflicts");
        pages.put("outbox", "console/outbox");
        pages.put("jobs", "console/jobs");
        pages.put("audit", "console/audit");

        try (BrowserContext context = browser.newContext(new Browser.NewContextOptions()
                .setViewportSize(390, 844).setDeviceScaleFactor(2).setIsMobile(true).setHasTouch(true))) {
            Page page = signIn(context, "admin", "admin-password");
            List<String> errors = new ArrayList<>();
            page.onConsoleMessage(message -> {
                if (message.type().equals("error")) {
                    errors.add(page.url() + ": " + message.text());
                }
            });
            page.onPageError(error -> errors.add(page.url() + ": " + error));

            pages.forEach((name, path) -> {
                com.microsoft.playwright.Response response = page.navigate(url(path));
                assertThat(response.status()).as(path).isEqualTo(200);
                List<?> widths = (List<?>) page.evaluate(
                        "() => [document.documentElement.scrollWidth, document.body.scrollWidth, window.innerWidth]");
                int documentWidth = ((Number) widths.get(0)).intValue();
                int bodyWidth = ((Number) widths.get(1)).intValue();
                int viewport = ((Number) widths.get(2)).intValue();
                screenshot(page, "narrow-" + name);
                assertThat(documentWidth).as("document width of %s at %d px", path, viewport).isLessThanOrEqualTo(viewport);
                assertThat(bodyWidth).as("body width of %s at %d px", path, viewport).isLessThanOrEqualTo(viewport);
            });
            assertThat(errors).as("errors in the browser console (a CSP violation is one)").isEmpty();
        }
    }

    private record Purchase(String userId, String key, String orderId) {
    }

    /**
     * An e-book and a course ordered with one key, the request sent twice more (replays), then paid with the sandbox
     * token whose webhook arrives three times (delivered here: the sandbox's delivery job is off in tests); returns once
     * the order is fulfilled and all three deliveries are in.
     */
    private Purchase paidAndRetriedPurchase() {
        String userId = "u-browser-" + UUID.randomUUID().toString().substring(0, 8);
        String key = "checkout-" + UUID.randomUUID();
        String orderId = createOrder(userId, key, CART).then().statusCode(201).extract().path("orderId");
        createOrder(userId, key, CART).then().statusCode(201).header("Idempotent-Replayed", "true");
        createOrder(userId, key, CART).then().statusCode(201).header("Idempotent-Replayed", "true");
        given().header("Authorization", TestTokens.bearer(userId)).contentType("application/json")
                .header("Idempotency-Key", "pay-" + UUID.randomUUID())
                .body("{\"paymentMethodToken\":\"tok_duplicate_webhooks\"}")
                .post("/api/orders/" + orderId + "/payments")
                .then().statusCode(201);
        awaitTrue("order " + orderId + " with three webhook deliveries", () -> {
            sandboxWebhooks.deliverDue();
            return Database.count(db, """
                    SELECT coalesce(max(w.delivery_count), 0) FROM webhook_inbox w
                      JOIN payments p ON p.provider = w.provider AND p.provider_payment_id = w.provider_payment_id
                     WHERE p.order_id = ?""", orderId) == 3;
        });
        paidOrders.relayUntilIdle();
        assertThat(Database.count(db, "SELECT count(*) FROM orders WHERE order_id = ? AND status = 'FULFILLED'",
                orderId)).isEqualTo(1);
        requestLog.flush();
        return new Purchase(userId, key, orderId);
    }

    /** A key sent again with another cart: refused with 422 and kept as a conflict. */
    private void keyReusedWithAnotherCart() {
        String userId = "u-browser-" + UUID.randomUUID().toString().substring(0, 8);
        String key = "checkout-" + UUID.randomUUID();
        createOrder(userId, key, CART).then().statusCode(201);
        createOrder(userId, key, OTHER_CART).then().statusCode(422);
    }

    /** A create-order record left PROCESSING at recovery point {@code started} a day ago, its lease long expired. */
    private long stuckOperation() {
        String userId = "u-browser-" + UUID.randomUUID().toString().substring(0, 8);
        String key = "stuck-" + UUID.randomUUID();
        Database.execute(db, """
                INSERT INTO idempotency_records (user_id, operation, idempotency_key, fingerprint, status, recovery_point,
                    lease_expires_at, request_id, created_at, expires_at)
                VALUES (?, 'create-order', ?, repeat('c', 64), 'PROCESSING', 'started', now() - interval '1 day' + interval '30 seconds',
                        'browser-test', now() - interval '1 day', now() + interval '1 day')""", userId, key);
        return recordIdOf(userId, key);
    }

    private Response createOrder(String userId, String key, String body) {
        return given().header("Authorization", TestTokens.bearer(userId)).contentType("application/json")
                .header("Idempotency-Key", key).body(body).post("/api/orders");
    }

    private long recordIdOf(String userId, String key) {
        return Database.count(db, "SELECT id FROM idempotency_records WHERE user_id = ? AND idempotency_key = ?", userId, key);
    }

    private String paymentOf(String orderId) {
        try (Connection connection = db.getConnection();
             PreparedStatement statement = connection.prepareStatement("SELECT payment_id FROM payments WHERE order_id = ?")) {
            statement.setString(1, orderId);
            try (ResultSet row = statement.executeQuery()) {
                assertThat(row.next()).as("a payment of " + orderId).isTrue();
                return row.getString(1);
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private Page signIn(BrowserContext context, String user, String password) {
        Page page = context.newPage();
        page.navigate(url("console"));
        assertThat(page).hasURL(url("console/login"));
        page.getByLabel("User name").fill(user);
        page.getByLabel("Password").fill(password);
        page.getByRole(AriaRole.BUTTON, new Page.GetByRoleOptions().setName("Sign in")).click();
        assertThat(page).hasURL(url("console"));
        return page;
    }

    /**
     * Presses Tab from the top of the page until {@code target} has the focus, at most {@code limit} times; returns
     * the number of presses, or {@code Integer.MAX_VALUE} when the focus never got there.
     */
    private static int tabsUntilFocused(Page page, Locator target, int limit) {
        page.evaluate("() => document.activeElement && document.activeElement.blur()");
        for (int presses = 1; presses <= limit; presses++) {
            page.keyboard().press("Tab");
            if ((Boolean) target.evaluate("button => button === document.activeElement")) {
                return presses;
            }
        }
        return Integer.MAX_VALUE;
    }

    private static void screenshot(Page page, String name) {
        page.screenshot(new Page.ScreenshotOptions().setPath(SCREENSHOTS.resolve(name + ".png")).setFullPage(true));
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
