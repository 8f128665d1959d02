package dev.onceguard.outbox;

import dev.onceguard.PaidOrders;
import dev.onceguard.TestTokens;
import dev.onceguard.platform.Ids;
import io.agroal.api.AgroalDataSource;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static dev.onceguard.Database.count;
import static dev.onceguard.Database.execute;
import static dev.onceguard.PaidOrders.EBOOK;
import static dev.onceguard.PaidOrders.eventStatus;
import static dev.onceguard.PaidOrders.orderStatus;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;

@QuarkusTest
class OutboxRelayTest {

    @Inject
    Ids ids;

    @Inject
    AgroalDataSource db;
    @Inject
    PaidOrders paidOrders;
    @Inject
    OutboxRelay relay;
    @Inject
    OutboxConfig config;
    @Inject
    OutboxMetrics metrics;
    @Inject
    MeterRegistry registry;

    @BeforeEach
    void deliverWhatEarlierTestsLeftDue() {
        paidOrders.relayUntilIdle();
    }

    record Row(String status, int attempts, Instant nextAttemptAt, String lastError) {
    }

    private Row row(String orderId) {
        try (Connection connection = db.getConnection();
             PreparedStatement statement = connection.prepareStatement("SELECT status, attempts, next_attempt_at, last_error "
                     + "FROM outbox_events WHERE aggregate_type = 'order' AND aggregate_id = ?")) {
            statement.setString(1, orderId);
            try (ResultSet rows = statement.executeQuery()) {
                rows.next();
                return new Row(rows.getString(1), rows.getInt(2), rows.getTimestamp(3).toInstant(), rows.getString(4));
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private void makeDue(String orderId) {
        execute(db, "UPDATE outbox_events SET next_attempt_at = now() - interval '1 second' WHERE aggregate_id = ?",
                orderId);
    }

    private long eventIdOf(String orderId) {
        return count(db, "SELECT id FROM outbox_events WHERE aggregate_type = 'order' AND aggregate_id = ?", orderId);
    }

    @Test
    void backoffDoublesUpToItsCap() {
        assertThat(List.of(1, 2, 3, 4, 5, 6, 7, 8).stream().map(config::backoffAfter).toList()).containsExactly(
                Duration.ofSeconds(10), Duration.ofSeconds(20), Duration.ofSeconds(40), Duration.ofSeconds(80),
                Duration.ofSeconds(160), Duration.ofSeconds(320), Duration.ofMinutes(10), Duration.ofMinutes(10));
    }

    @Test
    void aFailingEventIsRetriedWithBackoffAndDeadAfterMaxAttempts() {
        String orderId = ids.next("ord");
        paidOrders.enqueueOrderPaid(orderId, TestTokens.newUser());

        for (int attempt = 1; attempt < config.maxAttempts(); attempt++) {
            makeDue(orderId);
            Instant before = Instant.now();
            relay.runOnce();
            Instant after = Instant.now();

            Row row = row(orderId);
            assertThat(row.status()).isEqualTo("PENDING");
            assertThat(row.attempts()).isEqualTo(attempt);
            assertThat(row.nextAttemptAt()).isBetween(before.plus(config.backoffAfter(attempt)).minusMillis(1),
                    after.plus(config.backoffAfter(attempt)));
            assertThat(row.lastError()).contains("license: order " + orderId + " does not exist");
        }
        relay.runOnce();
        assertThat(row(orderId).status()).as("not due yet: the backoff holds it back").isEqualTo("PENDING");

        long deadBefore = metrics.readBacklog(Instant.now()).dead();
        makeDue(orderId);
        relay.runOnce();

        Row dead = row(orderId);
        assertThat(dead.status()).isEqualTo("DEAD");
        assertThat(dead.attempts()).isEqualTo(config.maxAttempts());
        execute(db, "UPDATE outbox_events SET next_attempt_at = now() - interval '1 second' WHERE aggregate_id = ?", orderId);
        relay.runOnce();
        assertThat(row(orderId).attempts()).as("a dead event is never claimed").isEqualTo(config.maxAttempts());
        assertThat(metrics.readBacklog(Instant.now()).dead()).as("this event among the dead")
                .isGreaterThanOrEqualTo(deadBefore + 1);
    }

    @Test
    void anEventWhoseLastAttemptNeverFinishedIsDeadAtItsNextClaim() {
        String orderId = paidOrders.create(TestTokens.newUser(), EBOOK);
        execute(db, "UPDATE outbox_events SET attempts = ?, next_attempt_at = now() - interval '1 second', "
                + "claim_token = gen_random_uuid() WHERE aggregate_id = ?", config.maxAttempts(), orderId);

        relay.runOnce();

        Row row = row(orderId);
        assertThat(row.status()).isEqualTo("DEAD");
        assertThat(row.lastError()).startsWith("no attempts left");
        assertThat(count(db, "SELECT count(*) FROM licenses WHERE order_id = ?", orderId)).isZero();
    }

    @Test
    void retryNowRevivesADeadEventOnce() {
        String orderId = ids.next("ord");
        String user = TestTokens.newUser();
        paidOrders.enqueueOrderPaid(orderId, user);
        execute(db, "UPDATE outbox_events SET attempts = ? WHERE aggregate_id = ?", config.maxAttempts() - 1, orderId);
        relay.runOnce();
        assertThat(eventStatus(db, orderId)).isEqualTo("DEAD");
        long eventId = eventIdOf(orderId);

        paidOrders.createOrderOnly(orderId, user, EBOOK);
        assertThat(relay.retryNow(eventId)).isTrue();
        assertThat(relay.retryNow(eventId)).as("already PENDING").isFalse();
        assertThat(row(orderId).attempts()).isZero();

        relay.runOnce();

        assertThat(eventStatus(db, orderId)).isEqualTo("DONE");
        assertThat(row(orderId).attempts()).isEqualTo(1);
        assertThat(orderStatus(db, orderId)).isEqualTo("FULFILLED");
        assertThat(count(db, "SELECT count(*) FROM licenses WHERE order_id = ?", orderId)).isEqualTo(1);
        assertThat(relay.retryNow(eventId)).as("DONE stays DONE").isFalse();
        assertThat(relay.retryNow(Long.MAX_VALUE)).as("unknown event").isFalse();
    }

    @Test
    void twoRelaysRunningAtOnceDeliverEachEventExactlyOnce() throws Exception {
        String user = TestTokens.newUser();
        paidOrders.createMany(200, user);
        CyclicBarrier barrier = new CyclicBarrier(2);
        ExecutorService pool = Executors.newFixedThreadPool(2);
        List<Future<int[]>> relays = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            relays.add(pool.submit(() -> {
                barrier.await();
                int claimed = 0;
                int done = 0;
                OutboxRelay.Result result;
                do {
                    result = relay.runOnce();
                    claimed += result.claimed();
                    done += result.done();
                } while (result.claimed() > 0);
                return new int[] {claimed, done};
            }));
        }
        int claimed = 0;
        for (Future<int[]> result : relays) {
            claimed += result.get()[0];
        }
        pool.shutdown();

        assertThat(claimed).isGreaterThanOrEqualTo(200);
        assertThat(count(db, "SELECT count(*) FROM outbox_events WHERE aggregate_id IN (SELECT order_id FROM orders "
                + "WHERE user_id = ?) AND status = 'DONE' AND attempts = 1", user)).isEqualTo(200);
        assertThat(count(db, "SELECT count(*) FROM orders WHERE user_id = ? AND status = 'FULFILLED'", user))
                .isEqualTo(200);
        assertThat(count(db, "SELECT count(*) FROM licenses WHERE user_id = ?", user)).isEqualTo(100);
        assertThat(count(db, "SELECT count(*) FROM licenses l JOIN order_items i ON i.order_id = l.order_id "
                + "WHERE l.user_id = ? AND i.product_id = ?", user, EBOOK)).isEqualTo(100);
        assertThat(count(db, "SELECT count(*) FROM notifications WHERE user_id = ?", user)).isEqualTo(200);
        assertThat(count(db, "SELECT count(DISTINCT order_id) FROM notifications WHERE user_id = ?", user)).isEqualTo(200);
        assertThat(count(db, "SELECT count(*) FROM loyalty_ledger WHERE user_id = ?", user)).isEqualTo(200);
        assertThat(count(db, "SELECT count(*) FROM state_transitions WHERE subject_type = 'order' "
                + "AND to_status = 'FULFILLED' AND subject_id IN (SELECT order_id FROM orders WHERE user_id = ?)", user))
                .isEqualTo(200);
    }

    @Test
    void aRunThatFindsNothingIsCountedIdle() {
        while (relay.runOnce().claimed() > 0) {
            // drain whatever other tests left due
        }
        double idleBefore = registry.get("onceguard.outbox.relay.idle").counter().count();

        OutboxRelay.Result result = relay.runOnce();

        assertThat(result).isEqualTo(new OutboxRelay.Result(0, 0, 0, 0));
        assertThat(registry.get("onceguard.outbox.relay.idle").counter().count()).isEqualTo(idleBefore + 1);
    }

    @Test
    void backlogCountsPendingAndTheAgeOfTheOldest() {
        String orderId = ids.next("ord");
        long pendingBefore = metrics.readBacklog(Instant.now()).pending();
        paidOrders.enqueueOrderPaid(orderId, TestTokens.newUser());
        execute(db, "UPDATE outbox_events SET created_at = now() - interval '2 hours', "
                + "next_attempt_at = now() + interval '1 hour' WHERE aggregate_id = ?", orderId);
        try {
            OutboxMetrics.Backlog backlog = metrics.readBacklog(Instant.now());

            assertThat(backlog.pending()).as("this event among the pending").isEqualTo(pendingBefore + 1);
            assertThat(backlog.oldestAgeSeconds()).isGreaterThanOrEqualTo(7200);
        } finally {
            execute(db, "DELETE FROM outbox_events WHERE aggregate_id = ?", orderId);
        }
    }

    @Test
    void metricsAreRegisteredAtStart() {
        String body = given().get("/q/metrics").then().statusCode(200).extract().asString();

        assertThat(body).contains("onceguard_outbox_pending", "onceguard_outbox_oldest_age_seconds",
                "onceguard_outbox_dead", "onceguard_outbox_relay_idle_total",
                "onceguard_effects_total{effect=\"license\",result=\"executed\"}",
                "onceguard_effects_total{effect=\"license\",result=\"skipped\"}",
                "onceguard_effects_total{effect=\"notification\",result=\"executed\"}",
                "onceguard_effects_total{effect=\"notification\",result=\"skipped\"}",
                "onceguard_effects_total{effect=\"loyalty_points\",result=\"executed\"}",
                "onceguard_effects_total{effect=\"loyalty_points\",result=\"skipped\"}");
    }
}
