package dev.onceguard.console;

import dev.onceguard.TestTokens;
import io.quarkus.test.junit.QuarkusTest;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.UUID;

import static dev.onceguard.console.InvestigationPages.ONE_EBOOK;
import static dev.onceguard.console.InvestigationPages.asAdmin;
import static dev.onceguard.console.InvestigationPages.asSupport;
import static dev.onceguard.console.InvestigationPages.createOrder;
import static dev.onceguard.console.InvestigationPages.firstRecordId;
import static dev.onceguard.console.InvestigationPages.page;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;

/** Who may open the investigation pages, what bad input answers, and that request-supplied values are escaped. */
@QuarkusTest
class ConsoleInvestigationAccessTest {

    private final String user = TestTokens.newUser();
    private List<String> pages;

    @BeforeEach
    void anOperationToLookAt() {
        createOrder(user, UUID.randomUUID().toString(), ONE_EBOOK).then().statusCode(201);
        long recordId = firstRecordId(page("/console/operations?user=" + user, 200));
        pages = List.of("/console", "/console/operations", "/console/operations/" + recordId, "/console/users/" + user);
    }

    @Test
    void anonymousVisitorsAreSentToTheLoginPage() {
        for (String path : pages) {
            given().redirects().follow(false).get(path).then().statusCode(302)
                    .header("Location", org.hamcrest.Matchers.endsWith("/console/login"));
        }
    }

    @Test
    void aWrongPasswordIsRefused() {
        for (String path : pages) {
            given().auth().preemptive().basic("support", "not-the-password").redirects().follow(false).get(path)
                    .then().statusCode(401);
        }
    }

    @Test
    void supportAndAdminSeeEveryPage() {
        for (String path : pages) {
            asSupport().get(path).then().statusCode(200).contentType("text/html");
            asAdmin().get(path).then().statusCode(200).contentType("text/html");
        }
    }

    @Test
    void anIdempotencyKeyWithMarkupIsShownAsTextInTheListAndTheDetail() {
        String key = "<script>alert(1)</script>";
        createOrder(user, key, ONE_EBOOK).then().statusCode(201);

        String list = asSupport().queryParam("key", key).get("/console/operations").then().statusCode(200)
                .extract().asString();
        String detail = page("/console/operations/" + firstRecordId(list), 200);

        for (String html : List.of(list, detail)) {
            assertThat(html).doesNotContain(key).contains("&lt;script&gt;alert(1)&lt;/script&gt;");
        }
        assertThat(detail).contains("One intent, sent once");
    }

    @Test
    void anUnknownOrNonNumericRecordIdIsANotFoundPage() {
        assertThat(page("/console/operations/999999999", 404)).contains("Not found")
                .contains("There is no idempotency record 999999999.");
        for (String id : List.of("abc", "0", "<b>x")) {
            assertThat(page("/console/operations/" + id, 404)).contains("Not found")
                    .contains("There is no operation with that id").doesNotContain("<b>");
        }
    }

    @Test
    void invalidFiltersAnswer400WithTheFormAndWhatWasWrong() {
        String badStatus = page("/console/operations?status=DONE<i>", 400);
        assertThat(badStatus).contains("Status &quot;DONE&lt;i&gt;&quot; is not one of PROCESSING, COMPLETED, FAILED.")
                .contains("<form class=\"filters");
        assertThat(page("/console/operations?from=yesterday", 400)).contains("From &quot;yesterday&quot; is not a time");
        assertThat(page("/console/operations?operation=delete-everything", 400)).contains("is not one of create-order, create-payment");
        assertThat(page("/console/operations?from=2026-11-30T06:00&to=2026-11-30T05:00", 400))
                .contains("From must be before To.");
    }

    @Test
    void aPagePositionTheConsoleDidNotWriteIsA400Page() {
        for (String path : List.of("/console/operations?after=garbage", "/console/users/" + user + "?after=garbage")) {
            assertThat(page(path, 400)).contains("Bad request")
                    .contains("The page position “after” is not one this console wrote.");
        }
    }

    @Test
    void aValidSearchWithoutMatchesExplainsWhatWouldAppear() {
        String html = page("/console/operations?key=" + UUID.randomUUID(), 200);
        assertThat(html).contains("No idempotency record matches these filters.");
        assertThat(page("/console/users/" + TestTokens.newUser(), 200)).contains("No idempotency record of this user");
    }
}
