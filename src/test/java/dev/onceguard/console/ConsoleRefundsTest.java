package dev.onceguard.console;

import dev.onceguard.Database;
import dev.onceguard.TestTokens;
import io.agroal.api.AgroalDataSource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.Response;
import jakarta.inject.Inject;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static dev.onceguard.console.ConsoleClient.ADMIN;
import static dev.onceguard.console.ConsoleClient.CSRF_COOKIE;
import static dev.onceguard.console.ConsoleClient.CSRF_FIELD;
import static dev.onceguard.console.ConsoleClient.SUPPORT;
import static dev.onceguard.console.InvestigationPages.ONE_EBOOK;
import static dev.onceguard.console.InvestigationPages.createOrder;
import static dev.onceguard.console.InvestigationPages.pay;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Refunds from the console, through its form (page first, then a POST with the page's CSRF token and key), on real
 * PostgreSQL and the sandbox provider: once per rendered form, admins only, and told in the order's story.
 */
@QuarkusTest
class ConsoleRefundsTest {

    private static final Pattern FORM_KEY = Pattern.compile("name=\"idempotency-key\" value=\"([^\"]+)\"");

    @Inject
    AgroalDataSource db;

    private final String user = TestTokens.newUser();

    /** The rendered refund form of a payment: its CSRF cookie and token, and the key minted with it. */
    private record RefundForm(ConsoleClient.Form csrf, String key, String html) {
    }

    @Test
    void theSecondChargeOfADoubleSubmissionIsRefundedOnceFromItsPreparedFormAndToldInTheStory() throws Exception {
        String first = createOrder(user, UUID.randomUUID().toString(), ONE_EBOOK).then().statusCode(201)
                .extract().path("orderId");
        String second = createOrder(user, UUID.randomUUID().toString(), ONE_EBOOK).then().statusCode(201)
                .extract().path("orderId");
        paid(first);
        String secondPayment = paid(second);

        String userPage = ConsoleClient.page(ADMIN, "/console/users/" + user).then().statusCode(200).extract().asString();
        String prepared = "/console/payments/" + secondPayment + "/refunds?reason=DUPLICATE#refund-form";
        assertThat(userPage).as("the later charge offers its prepared refund form")
                .contains("<a class=\"refund-second-charge\" href=\"" + prepared + "\">Refund the second charge</a>")
                .containsOnlyOnce("Refund the second charge");
        assertThat(ConsoleClient.page(ADMIN, "/console/orders/" + first).then().statusCode(200).extract().asString())
                .as("the first order's story offers the second charge too")
                .contains("id=\"refund-second-charge\"").contains(secondPayment);
        assertThat(ConsoleClient.page(SUPPORT, "/console/users/" + user).then().statusCode(200).extract().asString())
                .doesNotContain("Refund the second charge");

        RefundForm form = openForm(secondPayment, "/console/payments/" + secondPayment + "/refunds?reason=DUPLICATE");
        assertThat(form.html()).as("prepared: everything left, reason DUPLICATE, nothing refunded yet")
                .contains("name=\"amount\" value=\"1500.00\"").contains("<option value=\"DUPLICATE\" selected>");
        assertThat(refundRows(secondPayment)).isZero();

        CyclicBarrier bothReady = new CyclicBarrier(2);
        ExecutorService threads = Executors.newFixedThreadPool(2);
        try {
            List<CompletableFuture<Response>> submits = List.of(1, 2).stream()
                    .map(i -> CompletableFuture.supplyAsync(() -> {
                        await(bothReady);
                        return submit(ADMIN, secondPayment, form, "1500.00", "DUPLICATE", "ticket 4711");
                    }, threads)).toList();
            for (CompletableFuture<Response> submit : submits) {
                Response answer = submit.get();
                assertThat(answer.statusCode()).as("each submit of the form leads to the order's story").isEqualTo(303);
                assertThat(answer.header("Location")).contains("/console/orders/" + second + "#refund");
            }
        } finally {
            threads.shutdown();
        }
        Response again = submit(ADMIN, secondPayment, form, "1500.00", "DUPLICATE", "ticket 4711");
        assertThat(again.statusCode()).isEqualTo(303);

        assertThat(refundRows(secondPayment)).as("one refund for one rendered form submitted three times").isOne();
        assertThat(sandboxRefunds(secondPayment)).as("the sandbox refunded once").hasSize(1);
        String refundId = Database.single(db, String.class, "SELECT refund_id FROM refunds WHERE payment_id = ?",
                secondPayment);
        assertThat(Database.single(db, String.class, "SELECT requested_by FROM refunds WHERE refund_id = ?", refundId))
                .isEqualTo("console:admin");
        assertThat(Database.count(db, """
                SELECT count(*) FROM console_audit WHERE action = 'refund' AND target_type = 'payment'
                   AND target_id = ? AND actor = 'admin' AND reason = 'DUPLICATE: ticket 4711'""", secondPayment))
                .as("every submit audited with who and why").isEqualTo(3);
        assertThat(Database.count(db, """
                SELECT count(*) FROM console_audit WHERE action = 'refund' AND target_id = ? AND outcome = 'done'""",
                secondPayment)).isOne();

        String status = Database.single(db, String.class, "SELECT status FROM refunds WHERE refund_id = ?", refundId);
        String story = ConsoleClient.page(SUPPORT, "/console/orders/" + second).then().statusCode(200).extract().asString();
        assertThat(story).contains("id=\"refund-" + refundId + "\"").contains(">" + status + "</span>")
                .contains("console admin admin").contains("ticket 4711");
        if (status.equals("SUCCEEDED")) {
            assertThat(story).contains("Charged twice; the second charge refunded (1500.00 RUB) by console admin admin on ")
                    .contains(", reason: duplicate (ticket 4711).")
                    .contains("<code>ORDER_REFUNDED</code> outbox event");
        } else {
            assertThat(story).contains("Charged twice; the second charge: a refund of 1500.00 RUB is " + status);
        }
        assertThat(story).as("nothing left to refund: no second offer").doesNotContain("id=\"refund-second-charge\"");
        long refundRecord = Database.count(db, "SELECT idempotency_record_id FROM refunds WHERE refund_id = ?", refundId);
        assertThat(ConsoleClient.page(SUPPORT, "/console/operations/" + refundRecord).then().statusCode(200).extract()
                .asString()).as("the refund's own operation page tells it too").contains("console admin admin")
                .contains("id=\"refund-" + refundId + "\"");
    }

    @Test
    void supportSeesNoFormAndIsRefusedAndBadOrExcessiveAmountsRefundNothing() {
        String orderId = createOrder(user, UUID.randomUUID().toString(), ONE_EBOOK).then().statusCode(201)
                .extract().path("orderId");
        String paymentId = paid(orderId);
        String path = "/console/payments/" + paymentId + "/refunds";

        String supportPage = ConsoleClient.page(SUPPORT, path).then().statusCode(200).extract().asString();
        assertThat(supportPage).contains("1500.00 RUB left to refund").doesNotContain("name=\"idempotency-key\"");
        RefundForm form = openForm(paymentId, path);
        assertThat(submit(SUPPORT, paymentId, form, "100.00", "OTHER", null).statusCode()).isEqualTo(403);

        Response badAmount = submit(ADMIN, paymentId, form, "12,50", "OTHER", null);
        assertThat(badAmount.statusCode()).isEqualTo(400);
        assertThat(badAmount.asString()).contains("The amount must be a positive amount with two decimals");
        Response noReason = submit(ADMIN, paymentId, form, "100.00", "", null);
        assertThat(noReason.statusCode()).isEqualTo(400);
        assertThat(noReason.asString()).contains("Choose a reason");
        assertThat(Database.count(db, "SELECT count(*) FROM idempotency_records WHERE idempotency_key = ?", form.key()))
                .as("a form refused before the engine writes no record").isZero();

        Response tooMuch = submit(ADMIN, paymentId, form, "1500.01", "OTHER", null);
        assertThat(tooMuch.statusCode()).isEqualTo(409);
        assertThat(tooMuch.asString()).contains("The amount is more than what remains of payment " + paymentId)
                .doesNotContain("name=\"idempotency-key\" value=\"" + form.key() + "\"");
        assertThat(refundRows(paymentId)).isZero();
        assertThat(Database.count(db, "SELECT count(*) FROM payments WHERE payment_id = ? AND refund_reserved = 0",
                paymentId)).as("nothing reserved").isOne();
        assertThat(sandboxRefunds(paymentId)).isEmpty();
        assertThat(Database.count(db, """
                SELECT count(*) FROM console_audit WHERE action = 'refund' AND target_id = ? AND outcome = 'refused'""",
                paymentId)).isOne();
    }

    @Test
    void aRefundThroughTheApiAndACancellationAreToldInTheirOrdersStories() {
        String paidOrder = createOrder(user, UUID.randomUUID().toString(), ONE_EBOOK).then().statusCode(201)
                .extract().path("orderId");
        String paymentId = paid(paidOrder);
        String backOffice = "support-tool-" + UUID.randomUUID();
        given().header("Authorization", TestTokens.refunds(backOffice)).header("Idempotency-Key", UUID.randomUUID().toString())
                .contentType("application/json")
                .body("{\"amount\":\"500.00\",\"reason\":\"REQUESTED_BY_CUSTOMER\",\"note\":\"ticket 815\"}")
                .post("/api/payments/" + paymentId + "/refunds").then().statusCode(org.hamcrest.Matchers.oneOf(201, 202));
        String status = Database.single(db, String.class, "SELECT status FROM refunds WHERE payment_id = ?", paymentId);

        String story = ConsoleClient.page(SUPPORT, "/console/orders/" + paidOrder).then().statusCode(200).extract()
                .asString();
        assertThat(story).contains("API user " + backOffice).contains("REQUESTED_BY_CUSTOMER").contains("ticket 815")
                .contains(">" + status + "</span>")
                .as("a partial refund takes no effect back").doesNotContain("<code>ORDER_REFUNDED</code>");
        if (status.equals("SUCCEEDED")) {
            assertThat(story).contains("Payment " + paymentId + " refunded (500.00 RUB) by API user " + backOffice
                    + " on ").contains(", reason: requested by customer (ticket 815).");
        }
        assertThat(ConsoleClient.page(SUPPORT, "/console/payments/" + paymentId + "/refunds").then().statusCode(200)
                .extract().asString()).contains("1000.00 RUB left to refund");

        String unpaidOrder = createOrder(user, UUID.randomUUID().toString(), ONE_EBOOK).then().statusCode(201)
                .extract().path("orderId");
        String cancelRequest = given().header("Authorization", TestTokens.bearer(user))
                .header("Idempotency-Key", UUID.randomUUID().toString()).contentType("application/json").body("{}")
                .post("/api/orders/" + unpaidOrder + "/cancellation").then().statusCode(200).extract().header("X-Request-Id");
        assertThat(ConsoleClient.page(SUPPORT, "/console/orders/" + unpaidOrder).then().statusCode(200).extract()
                .asString()).contains("id=\"cancellation\"").contains("Canceled by its owner " + user + " on ")
                .contains(cancelRequest);
    }

    private RefundForm openForm(String paymentId, String path) {
        Response page = ConsoleClient.page(ADMIN, path);
        ConsoleClient.Form csrf = new ConsoleClient.Form(page.getCookie(CSRF_COOKIE), csrfToken(page.asString()));
        Matcher key = FORM_KEY.matcher(page.asString());
        assertThat(key.find()).as("the refund form of " + paymentId + " carries a key").isTrue();
        return new RefundForm(csrf, key.group(1), page.asString());
    }

    private static String csrfToken(String html) {
        Matcher token = Pattern.compile("name=\"" + CSRF_FIELD + "\" value=\"([^\"]+)\"").matcher(html);
        assertThat(token.find()).isTrue();
        return token.group(1);
    }

    private static Response submit(String operator, String paymentId, RefundForm form, String amount, String reason,
                                   String note) {
        var request = ConsoleClient.as(operator).cookie(CSRF_COOKIE, form.csrf().cookie())
                .contentType("application/x-www-form-urlencoded").formParam(CSRF_FIELD, form.csrf().token())
                .formParam("idempotency-key", form.key()).formParam("amount", amount).formParam("reason", reason);
        if (note != null) {
            request.formParam("note", note);
        }
        return request.post("/console/payments/" + paymentId + "/refunds");
    }

    /** Pays the order; on a machine too busy for the sandbox's answer, retries with the same key as a client would. */
    private String paid(String orderId) {
        String key = UUID.randomUUID().toString();
        Response answer = Awaitility.await().alias("order " + orderId + " paid").atMost(Duration.ofSeconds(60))
                .pollInSameThread().pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(500))
                .until(() -> pay(user, orderId, key, "tok_success"), paid -> paid.statusCode() == 201);
        return answer.path("paymentId");
    }

    private long refundRows(String paymentId) {
        return Database.count(db, "SELECT count(*) FROM refunds WHERE payment_id = ?", paymentId);
    }

    private List<String> sandboxRefunds(String paymentId) {
        String providerPayment = Database.single(db, String.class,
                "SELECT provider_payment_id FROM payments WHERE payment_id = ?", paymentId);
        return given().get("/sandbox/v1/refunds?payment=" + providerPayment).then().statusCode(200)
                .extract().path("data.status");
    }

    private static void await(CyclicBarrier barrier) {
        try {
            barrier.await();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
