package dev.onceguard.console;

import dev.onceguard.TestTokens;
import io.agroal.api.AgroalDataSource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.Response;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static dev.onceguard.Database.execute;
import static dev.onceguard.console.ConsoleClient.ADMIN;
import static dev.onceguard.console.ConsoleClient.SUPPORT;
import static dev.onceguard.console.ConsoleClient.page;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;

/** The machinery pages for each kind of visitor, their filters, pagination, empty states and escaping. */
@QuarkusTest
class ConsoleMachineryPagesTest {

    private static final String SCRIPT_KEY = "<script>alert(1)</script>";

    @Inject
    AgroalDataSource db;

    @ParameterizedTest
    @ValueSource(strings = {"/console/stuck", "/console/webhooks", "/console/conflicts", "/console/outbox",
            "/console/jobs", "/console/audit"})
    void anAnonymousVisitorIsSentToTheLoginPage(String path) {
        Response response = given().redirects().follow(false).get(path);

        assertThat(response.statusCode()).isEqualTo(302);
        assertThat(response.header("Location")).endsWith("/console/login");
    }

    @Test
    void theApiStillAnswersAnAnonymousCallerWithItsBearerChallenge() {
        Response response = given().redirects().follow(false).get("/api/products");

        assertThat(response.statusCode()).isEqualTo(401);
        assertThat(response.contentType()).startsWith("application/problem+json");
        assertThat(response.header("WWW-Authenticate")).isEqualTo("Bearer");
    }

    @ParameterizedTest
    @ValueSource(strings = {"/console/stuck", "/console/webhooks", "/console/conflicts", "/console/outbox",
            "/console/jobs", "/console/audit"})
    void aWrongPasswordIsRefused(String path) {
        assertThat(given().auth().preemptive().basic(ADMIN, "not-the-password").redirects().follow(false).get(path)
                .statusCode()).isEqualTo(401);
    }

    @ParameterizedTest
    @ValueSource(strings = {"/console/stuck", "/console/webhooks", "/console/conflicts", "/console/outbox",
            "/console/jobs", "/console/audit"})
    void supportAndAdminSeeThePage(String path) {
        for (String user : List.of(SUPPORT, ADMIN)) {
            Response response = page(user, path);

            assertThat(response.statusCode()).as(user + " " + path).isEqualTo(200);
            assertThat(response.contentType()).startsWith("text/html");
            assertThat(response.asString()).contains("<h1>").contains(user + " (" + user + ")");
        }
    }

    @Test
    void onlyAnAdminIsOfferedTheActions() {
        assertThat(page(ADMIN, "/console/jobs").asString()).contains("action=\"/console/jobs/lease-recovery/run\"")
                .contains("data-confirm=");
        assertThat(page(SUPPORT, "/console/jobs").asString()).doesNotContain("/run\"").doesNotContain("Run now");
    }

    @Test
    void aKeyWithMarkupIsShownAsTextOnTheStuckPage() {
        String user = "u-<b>" + TestTokens.newUser();
        long id = MachinerySeeds.processing(db, user, "create-order", SCRIPT_KEY, "started", null, true);
        execute(db, "UPDATE idempotency_records SET created_at = '2000-01-01T00:00:00Z' WHERE id = ?", id);

        String html = page(SUPPORT, "/console/stuck").asString();

        assertThat(html).contains("&lt;script&gt;alert(1)&lt;/script&gt;").doesNotContain(SCRIPT_KEY)
                .doesNotContain("<b>u-").contains("href=\"/console/operations/" + id + "\"")
                .contains("href=\"/console/users/u-%3Cb%3E");
    }

    @Test
    void aKeyWithMarkupIsShownAsTextOnTheConflictsPage() {
        String user = TestTokens.newUser();
        long recordId = MachinerySeeds.processing(db, user, "create-order", "k-" + user, "started", null, false);
        MachinerySeeds.conflict(db, recordId, user, SCRIPT_KEY);

        String html = page(SUPPORT, "/console/conflicts?user=" + user).asString();

        assertThat(html).contains("&lt;script&gt;alert(1)&lt;/script&gt;").doesNotContain(SCRIPT_KEY)
                .contains("href=\"/console/operations/" + recordId + "\"")
                .contains("aaaaaaaaaaaa…").contains("a".repeat(64)).contains("c".repeat(64));
        assertThat(ConsoleClient.as(SUPPORT).queryParam("key", SCRIPT_KEY).get("/console/conflicts").asString())
                .contains("value=\"&lt;script&gt;alert(1)&lt;/script&gt;\"")
                .contains("<td><a class=\"mono\" href=\"/console/operations/" + recordId + "\"")
                .doesNotContain(SCRIPT_KEY);
    }

    @Test
    void conflictsArePagedByKeysetWithoutRepeatsOrGaps() {
        String user = TestTokens.newUser();
        long recordId = MachinerySeeds.processing(db, user, "create-order", "k-" + user, "started", null, false);
        execute(db, """
                INSERT INTO idempotency_conflicts (record_id, user_id, operation, idempotency_key, original_fingerprint,
                    conflicting_fingerprint, request_id, created_at)
                SELECT ?, ?, 'create-order', 'paged-' || g, repeat('a', 64), repeat('c', 64), 'req-' || g,
                       now() - (g / 2) * interval '1 second'
                  FROM generate_series(1, 60) g""", recordId, user);

        Response first = page(SUPPORT, "/console/conflicts?user=" + user);
        List<String> keys = new ArrayList<>(keys(first.asString()));
        Matcher next = Pattern.compile("href=\"([^\"]+after=[^\"]+)\">Next page").matcher(first.asString());
        assertThat(next.find()).isTrue();
        Response second = page(SUPPORT, next.group(1).replace("&amp;", "&"));
        keys.addAll(keys(second.asString()));

        assertThat(keys).hasSize(60).doesNotHaveDuplicates();
        assertThat(keys.get(0)).isEqualTo("paged-1");
        assertThat(second.asString()).doesNotContain(">Next page");
    }

    @Test
    void paymentsArePagedByKeysetWithoutRepeatsOrGapsWhereTheyChangedAtTheSameMoment() {
        String user = TestTokens.newUser();
        execute(db, """
                INSERT INTO orders (order_id, user_id, status, total, currency, request_id, created_at, updated_at)
                SELECT 'ord_paged_' || ? || '_' || g, ?, 'AWAITING_PAYMENT', 1500.00, 'RUB', 'req-seed', now(), now()
                  FROM generate_series(1, 60) g""", user.replace('-', '_'), user);
        execute(db, """
                INSERT INTO payments (payment_id, order_id, user_id, status, amount, currency, provider,
                    provider_idempotency_key, payment_method_token, created_at, updated_at)
                SELECT 'pay_paged_' || ? || '_' || g, 'ord_paged_' || ? || '_' || g, ?, 'CREATED', 1500.00, 'RUB',
                       'sandbox', 'onceguard-paged-' || ? || '-' || g, 'tok_success', now(),
                       '2001-01-01T00:00:00Z'::timestamptz + (g / 4) * interval '1 second'
                  FROM generate_series(1, 60) g""", user.replace('-', '_'), user.replace('-', '_'), user, user);
        try {
            List<String> mine = new ArrayList<>();
            String path = "/console/payments?status=CREATED";
            for (int pages = 0; path != null; pages++) {
                assertThat(pages).as("pages read").isLessThan(100);
                String html = page(SUPPORT, path).then().statusCode(200).extract().asString();
                Matcher payment = Pattern.compile(">(pay_paged_" + user.replace('-', '_') + "_\\d+)<").matcher(html);
                while (payment.find()) {
                    mine.add(payment.group(1));
                }
                Matcher next = Pattern.compile("<a rel=\"next\" href=\"([^\"]+)\"").matcher(html);
                path = next.find() ? next.group(1).replace("&amp;", "&") : null;
            }

            assertThat(mine).hasSize(60).doesNotHaveDuplicates();
        } finally {
            execute(db, "DELETE FROM payments WHERE user_id = ?", user);
            execute(db, "DELETE FROM orders WHERE user_id = ?", user);
        }
    }

    @Test
    void filtersThatMatchNothingSayWhatWouldAppear() {
        assertThat(page(SUPPORT, "/console/conflicts?user=nobody-" + TestTokens.newUser()).asString())
                .contains("No key conflicts match these filters");
        assertThat(page(SUPPORT, "/console/webhooks?provider=nobody").asString())
                .contains("No inbox events match these filters");
        assertThat(page(SUPPORT, "/console/jobs?job=retention-cleanup").asString()).contains("Runs of retention-cleanup");
    }

    @Test
    void malformedFiltersAndPositionsAreClear400Pages() {
        for (String path : List.of("/console/webhooks?status=DONE", "/console/webhooks?provider=%3Cx%3E",
                "/console/outbox?status=DONE", "/console/jobs?job=%3Cscript%3E", "/console/audit?after=yesterday",
                "/console/stuck?after=99999999999999999999-1", "/console/conflicts?key=" + "k".repeat(300),
                "/console/payments?after=1~pay_x", "/console/audit?after=1-pay_x")) {
            Response response = page(SUPPORT, path);

            assertThat(response.statusCode()).as(path).isEqualTo(400);
            assertThat(response.contentType()).startsWith("text/html");
            assertThat(response.asString()).contains("Bad request").doesNotContain("<script>").doesNotContain("<x>");
        }
    }

    @Test
    void aNoticeIsOnlyEverOneOfTheConsolesOwnTexts() {
        assertThat(page(ADMIN, "/console/stuck?notice=released&target=42").asString())
                .contains("Operation 42 released");
        assertThat(page(ADMIN, "/console/stuck?notice=released&target=%3Cscript%3E").asString())
                .doesNotContain("released:").doesNotContain("<script>");
        assertThat(page(ADMIN, "/console/stuck?notice=%3Cscript%3E&target=42").asString())
                .doesNotContain("role=\"status\"");
    }

    private static List<String> keys(String html) {
        Matcher matcher = Pattern.compile(">(paged-\\d+)</a>").matcher(html);
        List<String> keys = new ArrayList<>();
        while (matcher.find()) {
            keys.add(matcher.group(1));
        }
        return keys;
    }
}
