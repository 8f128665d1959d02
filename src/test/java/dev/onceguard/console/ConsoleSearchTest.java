package dev.onceguard.console;

import dev.onceguard.SandboxWebhooks;
import dev.onceguard.Database;
import dev.onceguard.PaidOrders;
import dev.onceguard.TestTokens;
import dev.onceguard.idempotency.RequestLog;
import io.agroal.api.AgroalDataSource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.Response;
import jakarta.inject.Inject;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.UUID;

import static dev.onceguard.console.InvestigationPages.ONE_EBOOK;
import static dev.onceguard.console.InvestigationPages.asSupport;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code /console/search}: every kind of id a paid order leaves behind, made through the real API and the sandbox,
 * found whole and by its beginning; one match goes straight to its page, several are listed, a short text is only
 * compared whole.
 */
@QuarkusTest
class ConsoleSearchTest {

    @Inject
    AgroalDataSource db;

    @Inject
    SandboxWebhooks sandboxWebhooks;

    @Inject
    PaidOrders paidOrders;

    @Inject
    RequestLog requestLog;


    private final String user = TestTokens.newUser();
    private final String orderKey = "search-order-" + UUID.randomUUID();
    private final String paymentKey = "search-pay-" + UUID.randomUUID();
    private final String retryClientRequestId = "search-retry-" + UUID.randomUUID();
    private String retryRequestId;
    private String orderId;
    private String paymentId;
    private long orderRecord;
    private long paymentRecord;

    @BeforeEach
    void aPaidOrderWithARetry() {
        orderId = given().header("Authorization", TestTokens.bearer(user)).header("Idempotency-Key", orderKey)
                .contentType("application/json").body(ONE_EBOOK).post("/api/orders")
                .then().statusCode(201).extract().path("orderId");
        retryRequestId = orderWithRequestId(user, orderKey, retryClientRequestId).then().statusCode(201).extract()
                .header("X-Request-Id");
        paymentId = given().header("Authorization", TestTokens.bearer(user)).header("Idempotency-Key", paymentKey)
                .contentType("application/json").body("{\"paymentMethodToken\":\"tok_success\"}")
                .post("/api/orders/" + orderId + "/payments")
                .then().statusCode(201).extract().path("paymentId");
        sandboxWebhooks.deliverDueWithin(Duration.ofMinutes(5));
        orderRecord = Database.count(db, "SELECT id FROM idempotency_records WHERE idempotency_key = ?", orderKey);
        paymentRecord = Database.count(db, "SELECT id FROM idempotency_records WHERE idempotency_key = ?", paymentKey);
    }

    private static Response orderWithRequestId(String user, String key, String clientRequestId) {
        return given().header("Authorization", TestTokens.bearer(user)).header("Idempotency-Key", key)
                .header("X-Request-Id", clientRequestId).contentType("application/json").body(ONE_EBOOK)
                .post("/api/orders");
    }

    private static Response search(String q) {
        return asSupport().queryParam("q", q).get("/console/search");
    }

    /** The one match's page, as the 303 gives it. */
    private static String jumpsTo(String q) {
        Response response = search(q);
        assertThat(response.statusCode()).as("search " + q).isEqualTo(303);
        return response.header("Location").replaceFirst("^https?://[^/]+", "");
    }

    @Test
    void eachKindOfIdLeadsStraightToItsPageWholeAndByItsBeginning() throws SQLException {
        String providerPaymentId = text("SELECT provider_payment_id FROM payments WHERE payment_id = ?", paymentId);
        String providerKey = text("SELECT provider_idempotency_key FROM payments WHERE payment_id = ?", paymentId);
        String firstRequestId = text("SELECT request_id FROM idempotency_records WHERE id = ?", orderRecord);
        long inboxId = Database.count(db, "SELECT id FROM webhook_inbox WHERE provider_payment_id = ? ORDER BY id LIMIT 1",
                providerPaymentId);
        String eventId = text("SELECT event_id FROM webhook_inbox WHERE id = ?", inboxId);
        long outboxId = Database.count(db, "SELECT id FROM outbox_events WHERE aggregate_id = ?", orderId);

        String order = "/console/operations/" + orderRecord;
        String payment = "/console/operations/" + paymentRecord;
        assertFound(orderId, "/console/orders/" + orderId);
        assertFound(paymentId, payment);
        assertFound(providerPaymentId, payment);
        assertFound(providerKey, payment);
        assertFound(firstRequestId, order);
        assertFound(orderKey, order);
        assertFound(paymentKey, payment);
        assertFound(user, "/console/users/" + user);
        assertFound(eventId, "/console/webhooks/" + inboxId);
        assertThat(jumpsTo(String.valueOf(outboxId))).isEqualTo("/console/orders/" + orderId);
        assertThat(jumpsTo("#" + outboxId)).isEqualTo("/console/orders/" + orderId);
    }

    @Test
    void aLicenceOrANotificationIdLeadsToItsOrdersPage() throws SQLException {
        paidOrders.relayUntilIdle();
        String licenceId = text("SELECT license_id FROM licenses WHERE order_id = ?", orderId);
        String notificationId = text("SELECT notification_id FROM notifications WHERE order_id = ? LIMIT 1", orderId);

        assertThat(licenceId).isNotNull();
        assertThat(notificationId).isNotNull();
        assertFound(licenceId, "/console/orders/" + orderId);
        assertFound(notificationId, "/console/orders/" + orderId);
        assertThat(asSupport().get("/console/orders/" + orderId).then().statusCode(200).extract().asString())
                .contains("href=\"/console/search?q=" + licenceId + "\"")
                .contains("href=\"/console/search?q=" + notificationId + "\"");
    }

    private void assertFound(String id, String page) {
        assertThat(jumpsTo(id)).as("the whole id " + id).isEqualTo(page);
        assertThat(jumpsTo(id.substring(0, id.length() - 1))).as("the beginning of " + id).isEqualTo(page);
        assertThat(jumpsTo("  " + id + " ")).as("the id pasted with spaces around it").isEqualTo(page);
    }

    @Test
    void aRetryIsFoundByTheServicesIdAndByItsClientsOwn() {
        requestLog.flush(); // the request log is written in batches off the request path

        assertThat(jumpsTo(retryRequestId)).isEqualTo("/console/operations/" + orderRecord);
        assertThat(jumpsTo(retryClientRequestId)).isEqualTo("/console/operations/" + orderRecord);
    }

    @Test
    void twoUsersSendingTheSameRequestIdAreTwoRequestsEachUnderItsOwnUser() {
        String chosen = "chosen-" + UUID.randomUUID();
        String victim = TestTokens.newUser();
        String attacker = TestTokens.newUser();
        Response victims = orderWithRequestId(victim, UUID.randomUUID().toString(), chosen);
        Response attackers = orderWithRequestId(attacker, UUID.randomUUID().toString(), chosen);
        requestLog.flush();

        assertThat(List.of(victims.statusCode(), attackers.statusCode())).containsExactly(201, 201);
        String victimsId = victims.header("X-Request-Id");
        String attackersId = attackers.header("X-Request-Id");
        assertThat(victimsId).as("each request gets the service's own id").isNotEqualTo(attackersId);
        assertThat(List.of(victims.header("X-Client-Request-Id"), attackers.header("X-Client-Request-Id")))
                .containsExactly(chosen, chosen);

        String html = search(chosen).then().statusCode(200).extract().asString();
        assertThat(html).contains("2 matches for");
        assertThat(groupOf(html, victim)).contains(">" + victimsId + "</a>").doesNotContain(attackersId)
                .contains("sent as " + chosen);
        assertThat(groupOf(html, attacker)).contains(">" + attackersId + "</a>").doesNotContain(victimsId)
                .contains("sent as " + chosen);
        assertThat(jumpsTo(victimsId)).as("the service's id is one request")
                .isEqualTo("/console/operations/" + recordOf(victim));
        assertThat(jumpsTo(attackersId)).isEqualTo("/console/operations/" + recordOf(attacker));
    }

    /** The search page's group of the requests of {@code user} found by a client's request id. */
    private static String groupOf(String html, String user) {
        int heading = html.indexOf("request id, user " + user + "</h2>");
        assertThat(heading).as("a group of its own for " + user).isNotNegative();
        return html.substring(heading, html.indexOf("</section>", heading));
    }

    private long recordOf(String user) {
        return Database.count(db, "SELECT id FROM idempotency_records WHERE user_id = ?", user);
    }

    @Test
    void severalMatchesAreListedByKind() {
        String shared = "search-" + UUID.randomUUID().toString().substring(0, 8);
        for (String suffix : new String[] {"-a", "-b"}) {
            given().header("Authorization", TestTokens.bearer(shared + suffix)).header("Idempotency-Key", shared + suffix)
                    .contentType("application/json").body(ONE_EBOOK).post("/api/orders").then().statusCode(201);
        }

        String html = search(shared).then().statusCode(200).extract().asString();

        assertThat(html).contains("4 matches for").contains("<h2 id=\"group-0\">Idempotency key</h2>")
                .contains(">User</h2>")
                .contains("href=\"/console/users/" + shared + "-a\"").contains("href=\"/console/users/" + shared + "-b\"")
                .contains(">" + shared + "-a</a>").contains(">" + shared + "-b</a>");
    }

    @Test
    void aTextShorterThanSixCharactersIsComparedWhole() {
        String html = search(orderId.substring(0, 5)).then().statusCode(200).extract().asString();

        assertThat(html).contains("id=\"search-none\"").contains("only whole ids are compared");
    }

    @Test
    void nothingFoundSaysSoAndBadTextIsRefused() {
        assertThat(search("no-such-id-" + UUID.randomUUID()).then().statusCode(200).extract().asString())
                .contains("id=\"search-none\"");
        assertThat(search("x".repeat(256)).statusCode()).isEqualTo(400);
        assertThat(search("ord_\u0001").statusCode()).isEqualTo(400);
        assertThat(search("").then().statusCode(200).extract().asString()).doesNotContain("search-none");
    }

    @Test
    void everyConsolePageHasTheSearchBox() {
        for (String path : new String[] {"/console", "/console/operations", "/console/stuck", "/console/webhooks",
                "/console/conflicts", "/console/outbox", "/console/jobs", "/console/audit", "/console/users/" + user,
                "/console/operations/" + orderRecord}) {
            assertThat(asSupport().get(path).then().statusCode(200).extract().asString()).as(path)
                    .contains("<form class=\"search\" method=\"get\" action=\"/console/search\" role=\"search\">")
                    .contains("<link rel=\"icon\" href=\"/console/assets/favicon.svg\" type=\"image/svg+xml\">");
        }
        assertThat(asSupport().get("/console/assets/favicon.svg").then().statusCode(200).extract().asString())
                .startsWith("<svg");
        assertThat(asSupport().get("/console/operations?user=" + user).then().statusCode(200).extract().asString())
                .contains("<caption>This page: 2 records, newest first</caption>")
                .contains("href=\"/console/operations?user=" + user + "&amp;format=csv\"");
    }

    @Test
    void aFilteredListExportsAsCsvWithItsFiltersKeptAndFormulasDefused() {
        String csv = asSupport().get("/console/operations?user=" + user + "&format=csv").then().statusCode(200)
                .contentType("text/csv").header("Content-Disposition", "attachment; filename=\"onceguard-operations.csv\"")
                .extract().asString();

        assertThat(csv.lines().toList()).hasSize(3);
        assertThat(csv.lines().findFirst().orElseThrow()).startsWith("record_id,idempotency_key,user_id,operation,status");
        assertThat(csv).contains("," + orderKey + "," + user + ",create-order,COMPLETED,")
                .contains("," + paymentKey + "," + user + ",create-payment,COMPLETED,");
        assertThat(CsvExport.quoted("=HYPERLINK(\"x\")")).isEqualTo("\"'=HYPERLINK(\"\"x\"\")\"");
        assertThat(CsvExport.quoted("-1,5")).isEqualTo("\"'-1,5\"");
    }

    private String text(String sql, Object parameter) throws SQLException {
        try (Connection connection = db.getConnection(); PreparedStatement statement = connection.prepareStatement(sql)) {
            statement.setObject(1, parameter);
            try (ResultSet row = statement.executeQuery()) {
                assertThat(row.next()).as(sql).isTrue();
                return row.getString(1);
            }
        }
    }
}
