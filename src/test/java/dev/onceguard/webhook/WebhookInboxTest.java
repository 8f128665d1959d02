package dev.onceguard.webhook;

import dev.onceguard.platform.Cause;
import dev.onceguard.webhook.Deliveries.Paid;
import io.agroal.api.AgroalDataSource;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.Response;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static dev.onceguard.Database.count;
import static dev.onceguard.webhook.Deliveries.deliver;
import static dev.onceguard.webhook.Deliveries.event;
import static dev.onceguard.webhook.Deliveries.newEventId;
import static dev.onceguard.webhook.Deliveries.orderWithPayment;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The webhook inbox against real PostgreSQL: an event delivered twice moves the payment once, two events reporting
 * the same fact make the order PAID once, a stale event never moves a payment back; races, rejections, failures.
 */
@QuarkusTest
class WebhookInboxTest {

    /** The console action that reprocesses an event names its audit entry; these tests call the inbox directly. */
    private static final Cause ADMIN = Cause.admin(0);

    @Inject
    AgroalDataSource db;

    @Inject
    WebhookInbox inbox;

    @Inject
    MeterRegistry metrics;

    @Test
    void scenario5_oneEventDeliveredTwiceMovesThePaymentOnceAndAnnouncesThePaidOrderOnce() {
        Paid paid = orderWithPayment(db, TestPayProvider.NAME, "PENDING");
        String eventId = newEventId();
        String body = event(eventId, "payment.succeeded", paid.providerPaymentId(), "SUCCEEDED");

        Response first = deliver(body);
        Response second = deliver(body);

        assertThat(first.statusCode()).isEqualTo(200);
        assertThat(first.path("status").toString()).isEqualTo("processed");
        assertThat(second.statusCode()).isEqualTo(200);
        assertThat(second.path("status").toString()).isEqualTo("duplicate");
        assertThat(transitions("payment", paid.paymentId())).isEqualTo(1);
        assertThat(timesMadePaid(paid.orderId())).isEqualTo(1);
        assertThat(orderPaidEvents(paid)).isEqualTo(1);
        assertThat(text("SELECT status FROM orders WHERE order_id = ?", paid.orderId())).isEqualTo("PAID");
        assertThat(count(db, "SELECT delivery_count FROM webhook_inbox WHERE provider = ? AND event_id = ?",
                TestPayProvider.NAME, eventId)).isEqualTo(2);
        assertThat(text("SELECT status FROM webhook_inbox WHERE event_id = ?", eventId)).isEqualTo("PROCESSED");
    }

    @Test
    void scenario6_twoEventsReportingTheSameSuccessMakeTheOrderPaidOnce() {
        Paid paid = orderWithPayment(db, TestPayProvider.NAME, "PENDING");
        String paymentEvent = newEventId();
        String chargeEvent = newEventId();

        Response first = deliver(event(paymentEvent, "payment.succeeded", paid.providerPaymentId(), "SUCCEEDED"));
        Response second = deliver(event(chargeEvent, "charge.succeeded", paid.providerPaymentId(), "SUCCEEDED"));

        assertThat(first.path("status").toString()).isEqualTo("processed");
        assertThat(second.statusCode()).isEqualTo(200);
        assertThat(second.path("status").toString()).isEqualTo("ignored");
        assertThat(timesMadePaid(paid.orderId())).isEqualTo(1);
        assertThat(orderPaidEvents(paid)).isEqualTo(1);
        assertThat(text("SELECT reason FROM webhook_inbox WHERE event_id = ?", chargeEvent))
                .isEqualTo("stale or repeated (payment is SUCCEEDED)");
    }

    @Test
    void aFailureEventFailsThePendingPaymentAndLeavesItsOrderAwaitingPayment() {
        Paid paid = orderWithPayment(db, TestPayProvider.NAME, "PENDING");
        String eventId = newEventId();

        Response failed = deliver(event(eventId, "payment.failed", paid.providerPaymentId(), "FAILED"));

        assertThat(failed.statusCode()).isEqualTo(200);
        assertThat(failed.path("status").toString()).isEqualTo("processed");
        assertThat(text("SELECT status FROM payments WHERE payment_id = ?", paid.paymentId())).isEqualTo("FAILED");
        assertThat(text("SELECT from_status || ' ' || to_status || ' ' || cause || ' ' || cause_ref FROM state_transitions"
                + " WHERE subject_type = 'payment' AND subject_id = ?", paid.paymentId()))
                .isEqualTo("PENDING FAILED webhook " + eventId);
        assertThat(text("SELECT status FROM orders WHERE order_id = ?", paid.orderId())).isEqualTo("AWAITING_PAYMENT");
        assertThat(transitions("order", paid.orderId())).isZero();
        assertThat(orderPaidEvents(paid)).isZero();
        assertThat(text("SELECT status || ' ' || payment_id || ' ' || (processed_at IS NOT NULL) FROM webhook_inbox"
                + " WHERE event_id = ?", eventId)).isEqualTo("PROCESSED " + paid.paymentId() + " true");
    }

    @Test
    void scenario9_aPendingEventAfterSuccessDoesNotMoveThePaymentBack() {
        Paid paid = orderWithPayment(db, TestPayProvider.NAME, "PENDING");
        deliver(event(newEventId(), "payment.succeeded", paid.providerPaymentId(), "SUCCEEDED"));
        String late = newEventId();

        Response stale = deliver(event(late, "payment.pending", paid.providerPaymentId(), "PENDING"));

        assertThat(stale.statusCode()).isEqualTo(200);
        assertThat(stale.path("status").toString()).isEqualTo("ignored");
        assertThat(text("SELECT status FROM payments WHERE payment_id = ?", paid.paymentId())).isEqualTo("SUCCEEDED");
        assertThat(transitions("payment", paid.paymentId())).isEqualTo(1);
        assertThat(text("SELECT status || ' ' || reason FROM webhook_inbox WHERE event_id = ?", late))
                .isEqualTo("IGNORED stale or repeated (payment is SUCCEEDED)");
    }

    @Test
    void twentyConcurrentDeliveriesOfOneEventApplyItOnce() throws Exception {
        Paid paid = orderWithPayment(db, TestPayProvider.NAME, "CREATED");
        String eventId = newEventId();
        String body = event(eventId, "payment.succeeded", paid.providerPaymentId(), "SUCCEEDED");
        int deliveries = 20;
        CyclicBarrier barrier = new CyclicBarrier(deliveries);
        ExecutorService pool = Executors.newFixedThreadPool(deliveries);
        List<Future<Response>> answers = new ArrayList<>();
        for (int i = 0; i < deliveries; i++) {
            answers.add(pool.submit(() -> {
                barrier.await();
                return deliver(body);
            }));
        }
        List<String> statuses = new ArrayList<>();
        for (Future<Response> answer : answers) {
            Response response = answer.get();
            assertThat(response.statusCode()).isEqualTo(200);
            statuses.add(response.path("status"));
        }
        pool.shutdown();

        assertThat(statuses).filteredOn("processed"::equals).hasSize(1);
        assertThat(statuses).filteredOn("duplicate"::equals).hasSize(deliveries - 1);
        assertThat(count(db, "SELECT delivery_count FROM webhook_inbox WHERE event_id = ?", eventId)).isEqualTo(deliveries);
        assertThat(transitions("payment", paid.paymentId())).isEqualTo(1);
        assertThat(orderPaidEvents(paid)).isEqualTo(1);
    }

    @Test
    void aForgedSignatureIsRejectedAndChangesNothing() {
        Paid paid = orderWithPayment(db, TestPayProvider.NAME, "PENDING");
        String body = event(newEventId(), "payment.succeeded", paid.providerPaymentId(), "SUCCEEDED");
        long now = Instant.now().getEpochSecond();
        String forged = HexFormat.of().formatHex(TestPayProvider.sign(now, "{\"another\":\"body\"}".getBytes(StandardCharsets.UTF_8)));
        String before = snapshot(paid);
        double rejectedBefore = deliveries("rejected_signature");

        Response response = deliver(body, now, forged);

        assertThat(response.statusCode()).isEqualTo(401);
        assertThat(response.contentType()).startsWith("application/problem+json");
        assertThat(response.path("code").toString()).isEqualTo("WEBHOOK_SIGNATURE_INVALID");
        assertThat(snapshot(paid)).isEqualTo(before);
        assertThat(deliveries("rejected_signature")).isEqualTo(rejectedBefore + 1);
    }

    @Test
    void aDeliverySignedLongAgoIsRejectedAndChangesNothing() {
        Paid paid = orderWithPayment(db, TestPayProvider.NAME, "PENDING");
        byte[] body = event(newEventId(), "payment.succeeded", paid.providerPaymentId(), "SUCCEEDED")
                .getBytes(StandardCharsets.UTF_8);
        long longAgo = Instant.now().getEpochSecond() - 301;
        String before = snapshot(paid);

        Response response = deliver(new String(body, StandardCharsets.UTF_8), longAgo,
                HexFormat.of().formatHex(TestPayProvider.sign(longAgo, body)));

        assertThat(response.statusCode()).isEqualTo(401);
        assertThat(response.path("code").toString()).isEqualTo("WEBHOOK_SIGNATURE_INVALID");
        assertThat(snapshot(paid)).isEqualTo(before);
    }

    @Test
    void anAuthenticButMalformedBodyIsRefusedAndChangesNothing() {
        Paid paid = orderWithPayment(db, TestPayProvider.NAME, "PENDING");
        String before = snapshot(paid);

        Response response = deliver("{\"id\":\"evt_broken\",\"type\":");

        assertThat(response.statusCode()).isEqualTo(400);
        assertThat(response.contentType()).startsWith("application/problem+json");
        assertThat(response.path("code").toString()).isEqualTo("MALFORMED_JSON");
        assertThat(snapshot(paid)).isEqualTo(before);
    }

    @Test
    void anUnknownProviderIsNotFound() {
        Response response = given().contentType("application/json").body("{}").post("/webhooks/nopay");

        assertThat(response.statusCode()).isEqualTo(404);
        assertThat(response.contentType()).startsWith("application/problem+json");
        assertThat(response.path("code").toString()).isEqualTo("PROVIDER_NOT_FOUND");
    }

    @Test
    void anEventAboutAPaymentNobodyKnowsYetIsParkedAndEveryDeliveryTriesToMatchItAgain() {
        String eventId = newEventId();
        String body = event(eventId, "payment.succeeded", "testpay_nobody_knows", "SUCCEEDED");

        Response first = deliver(body);
        Response again = deliver(body);

        assertThat(first.statusCode()).isEqualTo(200);
        assertThat(first.path("status").toString()).isEqualTo("pending_match");
        assertThat(again.path("status").toString()).isEqualTo("pending_match");
        assertThat(text("SELECT status || ' ' || delivery_count || ' ' || provider_payment_id || ' ' || event_type"
                + " || ' ' || (processed_at IS NULL) FROM webhook_inbox WHERE event_id = ?", eventId))
                .isEqualTo("PENDING_MATCH 2 testpay_nobody_knows payment.succeeded true");
        assertThat(text("SELECT payload ->> 'payment' FROM webhook_inbox WHERE event_id = ?", eventId))
                .isEqualTo("testpay_nobody_knows");
    }

    @Test
    void anEventWhoseAmountIsNotThePaymentsIsRejectedKeptAndCountedAndMovesNothing() {
        Paid paid = orderWithPayment(db, TestPayProvider.NAME, "PENDING");
        String eventId = newEventId();
        double rejectedBefore = events("rejected");

        Response response = deliver(event(eventId, "payment.succeeded", paid.providerPaymentId(), "SUCCEEDED",
                "150.00", "RUB"));
        Response again = deliver(event(eventId, "payment.succeeded", paid.providerPaymentId(), "SUCCEEDED",
                "150.00", "RUB"));

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.path("status").toString()).isEqualTo("rejected");
        assertThat(again.path("status").toString()).isEqualTo("duplicate");
        assertThat(text("SELECT status FROM payments WHERE payment_id = ?", paid.paymentId())).isEqualTo("PENDING");
        assertThat(text("SELECT status FROM orders WHERE order_id = ?", paid.orderId())).isEqualTo("AWAITING_PAYMENT");
        assertThat(transitions("payment", paid.paymentId())).isZero();
        assertThat(orderPaidEvents(paid)).isZero();
        assertThat(text("SELECT status || ' ' || payment_id || ': ' || reason FROM webhook_inbox WHERE event_id = ?",
                eventId)).isEqualTo("REJECTED " + paid.paymentId() + ": amount mismatch: the event says 150.00 RUB, payment "
                + paid.paymentId() + " is 1500.00 RUB");
        assertThat(events("rejected")).isEqualTo(rejectedBefore + 1);
        assertThat(given().auth().preemptive().basic("support", "support-password").get("/console/webhooks?status=REJECTED")
                .then().statusCode(200).extract().asString())
                .contains(eventId, "amount mismatch: the event says 150.00 RUB", paid.paymentId());
        assertThat(given().get("/q/metrics").asString()).containsPattern(
                "onceguard_webhook_events_total\\{[^}]*outcome=\"rejected\"[^}]*provider=\"" + TestPayProvider.NAME + "\"");
    }

    @Test
    void anEventInAnotherCurrencyIsRejected() {
        Paid paid = orderWithPayment(db, TestPayProvider.NAME, "PENDING");
        String eventId = newEventId();

        Response response = deliver(event(eventId, "payment.succeeded", paid.providerPaymentId(), "SUCCEEDED",
                "1500.00", "USD"));

        assertThat(response.path("status").toString()).isEqualTo("rejected");
        assertThat(text("SELECT status FROM payments WHERE payment_id = ?", paid.paymentId())).isEqualTo("PENDING");
        assertThat(text("SELECT reason FROM webhook_inbox WHERE event_id = ?", eventId))
                .isEqualTo("amount mismatch: the event says 1500.00 USD, payment " + paid.paymentId() + " is 1500.00 RUB");
    }

    @Test
    void anEventWithTheSameAmountWrittenWithOtherDecimalsSettles() {
        Paid paid = orderWithPayment(db, TestPayProvider.NAME, "PENDING");

        Response response = deliver(event(newEventId(), "payment.succeeded", paid.providerPaymentId(), "SUCCEEDED",
                "1500.0", "RUB"));

        assertThat(response.path("status").toString()).isEqualTo("processed");
        assertThat(text("SELECT status FROM payments WHERE payment_id = ?", paid.paymentId())).isEqualTo("SUCCEEDED");
    }

    @Test
    void anEventTypeThatIsNotActedOnIsIgnored() {
        Paid paid = orderWithPayment(db, TestPayProvider.NAME, "PENDING");
        String eventId = newEventId();

        Response response = deliver("{\"id\":\"" + eventId + "\",\"type\":\"payment.updated\",\"payment\":\""
                + paid.providerPaymentId() + "\"}");

        assertThat(response.path("status").toString()).isEqualTo("ignored");
        assertThat(text("SELECT reason FROM webhook_inbox WHERE event_id = ?", eventId)).isEqualTo("event type not handled");
        assertThat(transitions("payment", paid.paymentId())).isZero();
    }

    @Test
    void anEventWhoseApplicationFailsIsKeptAsFailedAndTheNextDeliveryProcessesIt() throws Exception {
        Paid paid = orderWithPayment(db, TestPayProvider.NAME, "PENDING");
        String eventId = newEventId();
        String body = event(eventId, "payment.succeeded", paid.providerPaymentId(), "SUCCEEDED");
        double failedBefore = deliveries("failed");

        Response failed;
        try (Connection holder = lockOrder(paid.orderId())) {
            failed = deliver(body);
            holder.rollback();
        }

        assertThat(failed.statusCode()).isEqualTo(500);
        assertThat(failed.contentType()).startsWith("application/problem+json");
        assertThat(failed.path("code").toString()).isEqualTo("WEBHOOK_PROCESSING_FAILED");
        assertThat(text("SELECT status FROM webhook_inbox WHERE event_id = ?", eventId)).isEqualTo("FAILED");
        assertThat(text("SELECT last_error FROM webhook_inbox WHERE event_id = ?", eventId)).contains("55P03");
        assertThat(text("SELECT status FROM payments WHERE payment_id = ?", paid.paymentId())).isEqualTo("PENDING");
        assertThat(transitions("payment", paid.paymentId())).isZero();
        assertThat(deliveries("failed")).isEqualTo(failedBefore + 1);

        Response next = deliver(body);

        assertThat(next.statusCode()).isEqualTo(200);
        assertThat(next.path("status").toString()).isEqualTo("processed");
        assertThat(text("SELECT status || ' ' || delivery_count || ' ' || coalesce(last_error, '-')"
                + " FROM webhook_inbox WHERE event_id = ?", eventId)).isEqualTo("PROCESSED 2 -");
        assertThat(text("SELECT status FROM orders WHERE order_id = ?", paid.orderId())).isEqualTo("PAID");
        assertThat(orderPaidEvents(paid)).isEqualTo(1);
    }

    @Test
    void reprocessingAFailedEventAppliesItOnceEvenWhenTwoAdminsTryAtOnce() throws Exception {
        Paid paid = orderWithPayment(db, TestPayProvider.NAME, "PENDING");
        String eventId = newEventId();
        try (Connection holder = lockOrder(paid.orderId())) {
            assertThat(deliver(event(eventId, "payment.succeeded", paid.providerPaymentId(), "SUCCEEDED")).statusCode())
                    .isEqualTo(500);
            holder.rollback();
        }
        long inboxId = count(db, "SELECT id FROM webhook_inbox WHERE event_id = ?", eventId);

        CyclicBarrier barrier = new CyclicBarrier(2);
        ExecutorService admins = Executors.newFixedThreadPool(2);
        Future<Optional<DeliveryOutcome>> first = admins.submit(() -> {
            barrier.await();
            return inbox.reprocess(inboxId, ADMIN);
        });
        Future<Optional<DeliveryOutcome>> second = admins.submit(() -> {
            barrier.await();
            return inbox.reprocess(inboxId, ADMIN);
        });
        List<Optional<DeliveryOutcome>> outcomes = List.of(first.get(), second.get());
        admins.shutdown();

        assertThat(outcomes).containsExactlyInAnyOrder(Optional.of(DeliveryOutcome.PROCESSED), Optional.empty());
        assertThat(text("SELECT status || ' ' || delivery_count FROM webhook_inbox WHERE id = ?", inboxId))
                .isEqualTo("PROCESSED 1");
        assertThat(transitions("payment", paid.paymentId())).isEqualTo(1);
        assertThat(orderPaidEvents(paid)).isEqualTo(1);
        assertThat(inbox.reprocess(inboxId, ADMIN)).isEmpty();
    }

    @Test
    void deliveryCountersExistAtZeroForEveryProviderAdapter() {
        String metricsText = given().get("/q/metrics").asString();

        for (String provider : List.of("stripe", TestPayProvider.NAME)) {
            for (DeliveryOutcome outcome : DeliveryOutcome.values()) {
                assertThat(metricsText).containsPattern("onceguard_webhook_deliveries_total\\{[^}]*outcome=\""
                        + outcome.label() + "\"[^}]*provider=\"" + provider + "\"");
            }
        }
    }

    /** Holds the order's row lock, as a long transaction elsewhere would, until the caller rolls back. */
    private Connection lockOrder(String orderId) throws SQLException {
        Connection connection = db.getConnection();
        connection.setAutoCommit(false);
        try (PreparedStatement lock = connection.prepareStatement("SELECT 1 FROM orders WHERE order_id = ? FOR UPDATE")) {
            lock.setString(1, orderId);
            lock.executeQuery().close();
        }
        return connection;
    }

    private double deliveries(String outcome) {
        return metrics.get("onceguard.webhook.deliveries").tag("provider", TestPayProvider.NAME)
                .tag("outcome", outcome).counter().count();
    }

    private double events(String outcome) {
        return metrics.get("onceguard.webhook.events").tag("provider", TestPayProvider.NAME)
                .tag("outcome", outcome).counter().count();
    }

    private long transitions(String subjectType, String subjectId) {
        return count(db, "SELECT count(*) FROM state_transitions WHERE subject_type = ? AND subject_id = ?",
                subjectType, subjectId);
    }

    /** Moves of the order into PAID; the relay's later PAID → FULFILLED is another, legitimate transition. */
    private long timesMadePaid(String orderId) {
        return count(db, "SELECT count(*) FROM state_transitions WHERE subject_type = 'order' AND subject_id = ?"
                + " AND to_status = 'PAID'", orderId);
    }

    private long orderPaidEvents(Paid paid) {
        return count(db, "SELECT count(*) FROM outbox_events WHERE event_type = 'ORDER_PAID' AND aggregate_id = ?",
                paid.orderId());
    }

    /** Everything a delivery could have written: inbox, transitions, outbox, and the payment's and order's state. */
    private String snapshot(Paid paid) {
        return count(db, "SELECT count(*) FROM webhook_inbox WHERE provider_payment_id = ?", paid.providerPaymentId())
                + " " + count(db, "SELECT count(*) FROM state_transitions WHERE subject_id IN (?, ?)",
                paid.paymentId(), paid.orderId())
                + " " + count(db, "SELECT count(*) FROM outbox_events WHERE aggregate_id = ?", paid.orderId())
                + " " + text("SELECT p.status || '/' || o.status || '/' || p.updated_at || '/' || o.updated_at"
                + " FROM payments p JOIN orders o USING (order_id) WHERE p.payment_id = ?", paid.paymentId());
    }

    private String text(String sql, Object... parameters) {
        try (Connection connection = db.getConnection();
             PreparedStatement statement = connection.prepareStatement(sql)) {
            for (int i = 0; i < parameters.length; i++) {
                statement.setObject(i + 1, parameters[i]);
            }
            try (ResultSet rows = statement.executeQuery()) {
                return rows.next() ? rows.getString(1) : null;
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }
}
