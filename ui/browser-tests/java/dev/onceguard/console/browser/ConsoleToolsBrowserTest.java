package dev.onceguard.console.browser;

import com.microsoft.playwright.Browser;
import com.microsoft.playwright.BrowserContext;
import com.microsoft.playwright.Locator;
import com.microsoft.playwright.Page;
import com.microsoft.playwright.Playwright;
import com.microsoft.playwright.options.AriaRole;
import com.microsoft.playwright.options.BoundingBox;
import dev.onceguard.Database;
import dev.onceguard.TestTokens;
import io.agroal.api.AgroalDataSource;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.net.URL;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import static com.microsoft.playwright.assertions.PlaywrightAssertions.assertThat;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The console's everyday tools in Debian's Chromium: the search box of every page, the copy button beside an id
 * (script from the console's own assets, under its strict CSP), local times on hover, and the stuck and jobs pages'
 * action buttons within a 390 px screen without scrolling sideways.
 */
@QuarkusTest
class ConsoleToolsBrowserTest {

    private static final String CART = "{\"items\":[{\"productId\":\"p-184\",\"quantity\":1}],\"currency\":\"RUB\"}";

    private static Playwright playwright;
    private static Browser browser;

    @TestHTTPResource("/")
    URL root;

    @Inject
    AgroalDataSource db;

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
    void theSearchBoxOfAnyPageGoesStraightToTheOrdersPageAndItsIdsCopy() {
        String user = "u-tools-" + UUID.randomUUID().toString().substring(0, 8);
        String key = "tools-" + UUID.randomUUID();
        String orderId = given().header("Authorization", TestTokens.bearer(user)).contentType("application/json")
                .header("Idempotency-Key", key).body(CART).post("/api/orders")
                .then().statusCode(201).extract().path("orderId");

        try (BrowserContext context = browser.newContext(new Browser.NewContextOptions().setViewportSize(1280, 900))) {
            context.grantPermissions(List.of("clipboard-read", "clipboard-write"));
            Page page = signIn(context);
            List<String> errors = errorsOf(page);
            page.navigate(url("console/webhooks"));

            Locator box = page.getByRole(AriaRole.SEARCHBOX, new Page.GetByRoleOptions().setName("Search any id"));
            box.fill(orderId.substring(0, orderId.length() - 2));
            box.press("Enter");

            assertThat(page).hasURL(url("console/orders/" + orderId));
            Locator copy = page.getByRole(AriaRole.BUTTON, new Page.GetByRoleOptions().setName("Copy " + key)).first();
            copy.click();
            assertThat(page.evaluate("() => navigator.clipboard.readText()")).isEqualTo(key);
            assertThat(copy).hasClass(java.util.regex.Pattern.compile("copied"));
            assertThat(page.locator("time[datetime]").first()).hasAttribute("title",
                    java.util.regex.Pattern.compile("\\(your time\\)$"));
            assertThat(errors).as("errors in the browser console (a CSP violation is one)").isEmpty();
        }
    }

    @Test
    void atAPhonesWidthTheStuckAndJobsActionsAreInViewAndKeysWrap() {
        String key = "stuck-tools-" + UUID.randomUUID() + "-" + "x".repeat(60);
        Database.execute(db, """
                INSERT INTO idempotency_records (user_id, operation, idempotency_key, fingerprint, status, recovery_point,
                    lease_expires_at, request_id, created_at, expires_at)
                VALUES (?, 'create-order', ?, repeat('c', 64), 'PROCESSING', 'started', now() - interval '1 hour',
                        'browser-tools', now() - interval '2 hours', now() + interval '1 day')""",
                "u-tools-" + UUID.randomUUID().toString().substring(0, 8), key);

        try (BrowserContext context = browser.newContext(new Browser.NewContextOptions()
                .setViewportSize(390, 844).setDeviceScaleFactor(2).setIsMobile(true).setHasTouch(true))) {
            Page page = signIn(context);
            List<String> errors = errorsOf(page);
            for (String path : List.of("console/stuck", "console/jobs")) {
                page.navigate(url(path));
                int viewport = ((Number) page.evaluate("() => window.innerWidth")).intValue();
                Locator buttons = page.locator("td.actions button");
                assertThat(buttons.count()).as("action buttons on " + path).isPositive();
                for (int i = 0; i < buttons.count(); i++) {
                    BoundingBox box = buttons.nth(i).boundingBox();
                    assertThat(box.x).as("left edge of button %d on %s", i, path).isGreaterThanOrEqualTo(0);
                    assertThat(box.x + box.width).as("right edge of button %d on %s at %d px", i, path, viewport)
                            .isLessThanOrEqualTo(viewport);
                }
                List<?> scroll = (List<?>) page.evaluate("""
                        () => [...document.querySelectorAll('.table-wrap')].filter(w => w.querySelector('td.actions'))
                                .map(w => w.scrollWidth - w.clientWidth)""");
                assertThat(scroll).as("sideways scroll inside the tables with actions of " + path).isNotEmpty()
                        .allMatch(n -> ((Number) n).intValue() <= 0);
            }
            page.navigate(url("console/stuck"));
            Locator keyLink = page.getByRole(AriaRole.LINK, new Page.GetByRoleOptions().setName(key));
            assertThat(keyLink.boundingBox().width).as("a long key wraps").isLessThanOrEqualTo(390);
            assertThat(page.locator("#job-warnings")).containsText("lease-recovery is switched off");
            assertThat(errors).isEmpty();
        }
    }

    private static List<String> errorsOf(Page page) {
        List<String> errors = new ArrayList<>();
        page.onConsoleMessage(message -> {
            if (message.type().equals("error")) {
                errors.add(page.url() + ": " + message.text());
            }
        });
        page.onPageError(error -> errors.add(page.url() + ": " + error));
        return errors;
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
}
