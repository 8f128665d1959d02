package dev.onceguard.webhook;

import io.agroal.api.AgroalDataSource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.restassured.response.Response;
import jakarta.inject.Inject;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import static dev.onceguard.Database.count;
import static dev.onceguard.webhook.Deliveries.deliver;
import static dev.onceguard.webhook.Deliveries.event;
import static dev.onceguard.webhook.Deliveries.newEventId;
import static dev.onceguard.webhook.Deliveries.orderWithPayment;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * New events that wait while both of the replica's settlement statements run are settled by one statement; a
 * statement the database refuses is sent again for each of its events alone. Two first events hold both statements,
 * each waiting for a payment the test has locked.
 */
@QuarkusTest
@TestProfile(WebhookSettlementBatchTest.LockWaitsOfFourSeconds.class)
class WebhookSettlementBatchTest {

    public static class LockWaitsOfFourSeconds implements QuarkusTestProfile {

        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("onceguard.webhooks.lock-timeout", "4s");
        }
    }

    private record Sent(String eventId, Deliveries.Paid paid, CompletableFuture<Response> answer) {
    }

    @Inject
    AgroalDataSource db;

    private final ExecutorService providers = Executors.newFixedThreadPool(12);
    private final List<Connection> locks = new ArrayList<>();
    private List<Deliveries.Paid> lockedPayments = List.of();

    @BeforeEach
    void quietStatements() {
        assertThat(waitingForAStatement()).isZero();
    }

    @AfterEach
    void release() throws Exception {
        for (Connection lock : locks) {
            lock.rollback();
            lock.close();
        }
        providers.shutdownNow();
    }

    @Test
    void eventsThatWaitedForAStatementAreSettledByOne() throws Exception {
        Connection lock = lockPayments(2);
        List<Sent> first = lockedPayments.stream().map(this::send).toList();
        awaitBlockedBy(lock, 2);
        List<Sent> waiting = newPayments(8).stream().map(this::send).toList();
        awaitWaitingForAStatement(8);

        lock.rollback();

        for (Sent sent : concat(first, waiting)) {
            assertThat(sent.answer().get(20, TimeUnit.SECONDS).<String>path("status")).isEqualTo("processed");
        }
        assertThat(count(db, "SELECT count(DISTINCT xmin::text) FROM webhook_inbox WHERE event_id = ANY(?)",
                (Object) eventIds(waiting))).as("statements that wrote the waiting events").isEqualTo(1);
        for (Sent sent : concat(first, waiting)) {
            assertThat(count(db, "SELECT count(*) FROM orders WHERE order_id = ? AND status = 'PAID'",
                    sent.paid().orderId())).isEqualTo(1);
            assertThat(count(db, "SELECT count(*) FROM state_transitions WHERE cause_ref = ?", sent.eventId()))
                    .as("the payment's and the order's transitions").isEqualTo(2);
            assertThat(count(db, "SELECT count(*) FROM outbox_events WHERE aggregate_id = ? AND event_type = 'ORDER_PAID'",
                    sent.paid().orderId())).isEqualTo(1);
        }
    }

    @Test
    void aStatementTheDatabaseRefusesIsSentAgainForEachEventAlone() throws Exception {
        Connection lock = lockPayments(2);
        List<Sent> first = lockedPayments.stream().map(this::send).toList();
        awaitBlockedBy(lock, 2);
        List<Sent> free = newPayments(7).stream().map(this::send).toList();
        Sent anotherForALockedPayment = send(lockedPayments.get(1));
        awaitWaitingForAStatement(8);

        for (Sent sent : free) {
            assertThat(sent.answer().get(30, TimeUnit.SECONDS).<String>path("status")).isEqualTo("processed");
            assertThat(count(db, "SELECT count(*) FROM orders WHERE order_id = ? AND status = 'PAID'",
                    sent.paid().orderId())).isEqualTo(1);
        }
        assertThat(count(db, "SELECT count(DISTINCT xmin::text) FROM webhook_inbox WHERE event_id = ANY(?)",
                (Object) eventIds(free))).as("each event written alone").isEqualTo(7);
        for (Sent sent : concat(first, List.of(anotherForALockedPayment))) {
            Response answer = sent.answer().get(30, TimeUnit.SECONDS);
            assertThat(answer.statusCode()).isEqualTo(500);
            assertThat(count(db, "SELECT count(*) FROM payments WHERE payment_id = ? AND status = 'PENDING'",
                    sent.paid().paymentId())).isEqualTo(1);
        }
    }

    /** New PENDING payments, locked by a transaction of the test's until it ends. */
    private Connection lockPayments(int count) throws Exception {
        lockedPayments = newPayments(count);
        Connection lock = db.getConnection();
        locks.add(lock);
        lock.setAutoCommit(false);
        try (Statement statement = lock.createStatement()) {
            for (Deliveries.Paid paid : lockedPayments) {
                statement.execute("SELECT 1 FROM payments WHERE payment_id = '" + paid.paymentId() + "' FOR UPDATE");
            }
        }
        return lock;
    }

    private List<Deliveries.Paid> newPayments(int count) {
        List<Deliveries.Paid> paid = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            paid.add(orderWithPayment(db, TestPayProvider.NAME, "PENDING"));
        }
        return paid;
    }

    private Sent send(Deliveries.Paid paid) {
        String eventId = newEventId();
        String body = event(eventId, "payment.succeeded", paid.providerPaymentId(), "SUCCEEDED");
        return new Sent(eventId, paid, CompletableFuture.supplyAsync(() -> deliver(body), providers));
    }

    private void awaitBlockedBy(Connection lock, int statements) throws Exception {
        int pid;
        try (Statement statement = lock.createStatement(); ResultSet row = statement.executeQuery("SELECT pg_backend_pid()")) {
            row.next();
            pid = row.getInt(1);
        }
        await().atMost(Duration.ofSeconds(3)).pollInterval(Duration.ofMillis(10)).untilAsserted(() ->
                assertThat(count(db, "SELECT count(*) FROM pg_stat_activity WHERE ? = ANY(pg_blocking_pids(pid))", pid))
                        .as("statements waiting for the test's lock").isEqualTo(statements));
    }

    private void awaitWaitingForAStatement(int events) {
        await().atMost(Duration.ofSeconds(3)).pollInterval(Duration.ofMillis(10)).untilAsserted(() ->
                assertThat(waitingForAStatement()).as("deliveries waiting for a statement").isEqualTo(events));
    }

    /** Worker threads parked in the settlement, waiting for a statement of their own or for the one they are in. */
    private static long waitingForAStatement() {
        return Thread.getAllStackTraces().entrySet().stream()
                .filter(thread -> thread.getKey().getState() == Thread.State.WAITING)
                .filter(thread -> Arrays.stream(thread.getValue()).anyMatch(frame ->
                        frame.getClassName().equals(KnownPaymentSettlement.class.getName())
                                && frame.getMethodName().equals("settle")))
                .count();
    }

    private static String[] eventIds(List<Sent> sent) {
        return sent.stream().map(Sent::eventId).toArray(String[]::new);
    }

    private static List<Sent> concat(List<Sent> a, List<Sent> b) {
        List<Sent> all = new ArrayList<>(a);
        all.addAll(b);
        return all;
    }
}
