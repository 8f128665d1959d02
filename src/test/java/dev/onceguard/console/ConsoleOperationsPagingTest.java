package dev.onceguard.console;

import dev.onceguard.Database;
import dev.onceguard.TestTokens;
import io.agroal.api.AgroalDataSource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

import static dev.onceguard.console.InvestigationPages.ONE_EBOOK;
import static dev.onceguard.console.InvestigationPages.TWO_EBOOKS;
import static dev.onceguard.console.InvestigationPages.createOrder;
import static dev.onceguard.console.InvestigationPages.nextPage;
import static dev.onceguard.console.InvestigationPages.page;
import static dev.onceguard.console.InvestigationPages.pageAt;
import static dev.onceguard.console.InvestigationPages.pay;
import static dev.onceguard.console.InvestigationPages.rowIds;
import static dev.onceguard.console.InvestigationPages.rowKeys;
import static dev.onceguard.console.InvestigationPages.rowOf;
import static org.assertj.core.api.Assertions.assertThat;

/** The operations list's filters and keyset pages, and the user view's pages and double-submission marks. */
@QuarkusTest
class ConsoleOperationsPagingTest {

    @Inject
    AgroalDataSource db;

    @Inject
    ConsoleReads sql;

    private final String user = TestTokens.newUser();

    /** {@code count} finished records of the user, two by two sharing a creation time, each with its own cart. */
    private List<Long> seedRecords(int count) {
        Database.execute(db, """
                INSERT INTO idempotency_records (user_id, operation, idempotency_key, fingerprint, status, recovery_point,
                    response_status, response_headers, response_body, request_id, created_at, completed_at, expires_at)
                SELECT ?, 'create-order', 'seed-' || g, md5(g::text) || md5(g::text), 'COMPLETED', 'finished', 201,
                       '{"Content-Type":"application/json"}', '\\x7b7d'::bytea, 'seed',
                       date_trunc('second', now()) - (g / 2) * interval '1 second', now(), now() + interval '1 day'
                  FROM generate_series(1, ?) g""", user, count);
        return sql.list("SELECT id FROM idempotency_records WHERE user_id = ?", row -> row.getLong(1), user);
    }

    /** Every row id of every page, following the "older" links from {@code firstPage}; the ids of each page. */
    private List<List<Long>> walk(String firstPage) {
        List<List<Long>> pages = new ArrayList<>();
        Optional<String> next = Optional.of(firstPage);
        while (next.isPresent()) {
            String html = pageAt(next.get(), 200);
            pages.add(rowIds(html));
            next = nextPage(html);
        }
        return pages;
    }

    @Test
    void keysetPagesOfTheListNeitherOverlapNorSkipRowsThatShareATime() {
        List<Long> seeded = seedRecords(120);

        List<List<Long>> pages = walk("/console/operations?user=" + user);

        assertThat(pages).extracting(List::size).containsExactly(50, 50, 20);
        List<Long> all = pages.stream().flatMap(List::stream).toList();
        assertThat(new HashSet<>(all)).hasSize(120).containsExactlyInAnyOrderElementsOf(seeded);
    }

    @Test
    void keysetPagesOfTheUserViewNeitherOverlapNorSkip() {
        List<Long> seeded = seedRecords(70);

        List<List<Long>> pages = walk("/console/users/" + user);

        assertThat(pages).extracting(List::size).containsExactly(50, 20);
        assertThat(pages.stream().flatMap(List::stream).toList()).doesNotHaveDuplicates()
                .containsExactlyInAnyOrderElementsOf(seeded);
    }

    @Test
    void filtersNarrowTheListByOrderStatusOperationKeyAndTime() {
        String orderKey = UUID.randomUUID().toString();
        String paymentKey = UUID.randomUUID().toString();
        String otherOrderKey = UUID.randomUUID().toString();
        String refusedKey = UUID.randomUUID().toString();
        String orderId = createOrder(user, orderKey, ONE_EBOOK).then().statusCode(201).extract().path("orderId");
        pay(user, orderId, paymentKey, "tok_success").then().statusCode(201);
        createOrder(user, otherOrderKey, TWO_EBOOKS).then().statusCode(201);
        createOrder(user, refusedKey, "{\"items\":[{\"productId\":\"p-404\",\"quantity\":1}],\"currency\":\"RUB\"}")
                .then().statusCode(409);
        Database.execute(db, "UPDATE idempotency_records SET created_at = '2020-01-01T10:30:00Z' "
                + "WHERE user_id = ? AND idempotency_key = ?", user, otherOrderKey);

        assertThat(rowKeys(page("/console/operations?order=" + orderId, 200)))
                .containsExactlyInAnyOrder(orderKey, paymentKey);
        assertThat(rowKeys(page("/console/operations?user=" + user + "&status=FAILED", 200)))
                .containsExactly(refusedKey);
        assertThat(rowKeys(page("/console/operations?user=" + user + "&operation=create-payment", 200)))
                .containsExactly(paymentKey);
        assertThat(rowKeys(page("/console/operations?key=" + otherOrderKey, 200))).containsExactly(otherOrderKey);
        assertThat(rowKeys(page("/console/operations?user=" + user + "&from=2020-01-01T10:00&to=2020-01-01T11:00", 200)))
                .containsExactly(otherOrderKey);
        assertThat(rowKeys(page("/console/operations?user=" + user + "&from=2020-01-01T10:30:01Z", 200)))
                .containsExactly(refusedKey, paymentKey, orderKey);
    }

    @Test
    void theProcessingFilterListsTheUnfinishedRecordsUnderALeaseLiveOrExpired() {
        String finishedKey = UUID.randomUUID().toString();
        String liveKey = UUID.randomUUID().toString();
        String expiredKey = UUID.randomUUID().toString();
        createOrder(user, finishedKey, ONE_EBOOK).then().statusCode(201);
        MachinerySeeds.processing(db, user, "create-payment", liveKey, "payment_created", null, false);
        MachinerySeeds.processing(db, user, "create-payment", expiredKey, "outcome_unknown", null, true);

        assertThat(rowKeys(page("/console/operations?user=" + user + "&status=PROCESSING", 200)))
                .containsExactlyInAnyOrder(liveKey, expiredKey);
        assertThat(rowKeys(page("/console/operations?user=" + user + "&status=COMPLETED", 200)))
                .containsExactly(finishedKey);
    }

    @Test
    void theSameCartUnderTwoKeysWithinTheWindowIsMarkedOnTheUserView() {
        String first = UUID.randomUUID().toString();
        String second = UUID.randomUUID().toString();
        String otherCart = UUID.randomUUID().toString();
        createOrder(user, first, ONE_EBOOK).then().statusCode(201);
        createOrder(user, second, ONE_EBOOK).then().statusCode(201);
        createOrder(user, otherCart, TWO_EBOOKS).then().statusCode(201);

        String html = page("/console/users/" + user, 200);

        for (String key : List.of(first, second)) {
            String row = rowOf(html, key);
            assertThat(row).contains("class=\"mark-double\"").contains("possible double submission")
                    .contains("same fingerprint, same operation, different keys").contains("seconds apart");
        }
        assertThat(rowOf(html, first)).contains(second);
        assertThat(rowOf(html, otherCart)).doesNotContain("mark-double").doesNotContain("possible double submission");
    }

    @Test
    void theSameCartFurtherApartThanTheWindowIsNotMarked() {
        String first = UUID.randomUUID().toString();
        String second = UUID.randomUUID().toString();
        createOrder(user, first, ONE_EBOOK).then().statusCode(201);
        createOrder(user, second, ONE_EBOOK).then().statusCode(201);
        Database.execute(db, "UPDATE idempotency_records SET created_at = created_at - interval '121 seconds' "
                + "WHERE user_id = ? AND idempotency_key = ?", user, first);

        String html = page("/console/users/" + user, 200);

        assertThat(rowKeys(html)).containsExactly(second, first);
        assertThat(html).doesNotContain("mark-double").doesNotContain("badge st-warn\">possible double submission");
    }
}
