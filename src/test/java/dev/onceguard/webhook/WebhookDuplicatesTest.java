package dev.onceguard.webhook;

import dev.onceguard.Database;
import dev.onceguard.webhook.Deliveries.Paid;
import io.agroal.api.AgroalDataSource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.Response;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static dev.onceguard.Database.count;
import static dev.onceguard.webhook.Deliveries.deliver;
import static dev.onceguard.webhook.Deliveries.event;
import static dev.onceguard.webhook.Deliveries.newEventId;
import static dev.onceguard.webhook.Deliveries.orderWithPayment;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Duplicates as reads: a settled event this replica has seen is answered from memory; one it has not seen (settled
 * by another replica) is answered by the database, also when its deliveries race; delivery rows and counts are
 * written in batches that add up to every delivery.
 */
@QuarkusTest
class WebhookDuplicatesTest {

    @Inject
    AgroalDataSource db;

    @Inject
    WebhookDeliveryLog deliveryLog;

    @Test
    void aSettledEventThisReplicaHasSeenIsAnsweredWithoutAskingTheDatabase() {
        Paid paid = orderWithPayment(db, TestPayProvider.NAME, "PENDING");
        String eventId = newEventId();
        String body = event(eventId, "payment.succeeded", paid.providerPaymentId(), "SUCCEEDED");
        assertThat(deliver(body).path("status").toString()).isEqualTo("processed");
        // as retention would: asking the database now would record the event again and answer "ignored"
        Database.execute(db, "DELETE FROM webhook_inbox WHERE provider = ? AND event_id = ?", TestPayProvider.NAME, eventId);

        Response again = deliver(body);

        assertThat(again.statusCode()).isEqualTo(200);
        assertThat(again.path("status").toString()).isEqualTo("duplicate");
        assertThat(count(db, "SELECT count(*) FROM webhook_inbox WHERE event_id = ?", eventId)).isZero();
        assertThat(count(db, "SELECT count(*) FROM state_transitions WHERE subject_id = ?", paid.paymentId())).isEqualTo(1);
    }

    @Test
    void duplicatesOfAnEventAnotherReplicaSettledRaceAtABarrierAndTheDatabaseAnswersEachOfThem() throws Exception {
        Paid paid = orderWithPayment(db, TestPayProvider.NAME, "SUCCEEDED");
        String eventId = newEventId();
        Database.execute(db, """
                INSERT INTO webhook_inbox (provider, event_id, event_type, provider_payment_id, payload, status,
                    payment_id, received_at, last_delivered_at, processed_at)
                VALUES (?, ?, 'payment.succeeded', ?, '{}', 'PROCESSED', ?, now(), now(), now())""",
                TestPayProvider.NAME, eventId, paid.providerPaymentId(), paid.paymentId());
        int racing = 12;

        List<String> answers = raceAtABarrier(racing, event(eventId, "payment.succeeded", paid.providerPaymentId(), "SUCCEEDED"));

        assertThat(answers).containsOnly("200 duplicate").hasSize(racing);
        assertThat(count(db, "SELECT delivery_count FROM webhook_inbox WHERE event_id = ?", eventId)).isEqualTo(1 + racing);
        assertThat(count(db, "SELECT count(*) FROM webhook_deliveries d JOIN webhook_inbox i ON i.id = d.inbox_id"
                + " WHERE i.event_id = ? AND d.outcome = 'duplicate' AND d.http_status = 200", eventId)).isEqualTo(racing);
        assertThat(count(db, "SELECT count(*) FROM state_transitions WHERE subject_id = ?", paid.paymentId())).isZero();
    }

    @Test
    void aNewEventDeliveredManyTimesAtOnceIsProcessedOnceAndEveryDeliveryIsLoggedAndCounted() throws Exception {
        Paid paid = orderWithPayment(db, TestPayProvider.NAME, "PENDING");
        String eventId = newEventId();
        int racing = 12;

        List<String> answers = raceAtABarrier(racing, event(eventId, "payment.succeeded", paid.providerPaymentId(), "SUCCEEDED"));

        assertThat(answers).filteredOn("200 processed"::equals).hasSize(1);
        assertThat(answers).filteredOn("200 duplicate"::equals).hasSize(racing - 1);
        assertThat(count(db, "SELECT delivery_count FROM webhook_inbox WHERE event_id = ?", eventId)).isEqualTo(racing);
        assertThat(count(db, "SELECT count(*) FROM webhook_deliveries d JOIN webhook_inbox i ON i.id = d.inbox_id"
                + " WHERE i.event_id = ?", eventId)).isEqualTo(racing);
        assertThat(Database.single(db, String.class, "SELECT string_agg(d.outcome, ',' ORDER BY d.delivered_at, d.id)"
                + " FROM webhook_deliveries d JOIN webhook_inbox i ON i.id = d.inbox_id WHERE i.event_id = ?", eventId))
                .as("the event page's order: the delivery that processed it, then the duplicates it made")
                .isEqualTo("processed" + ",duplicate".repeat(racing - 1));
        assertThat(count(db, "SELECT count(*) FROM state_transitions WHERE subject_id = ?", paid.paymentId())).isEqualTo(1);
        assertThat(count(db, "SELECT count(*) FROM outbox_events WHERE event_type = 'ORDER_PAID' AND aggregate_id = ?",
                paid.orderId())).isEqualTo(1);
    }

    @Test
    void aBatchAddsEachEventsLaterDeliveriesToItsCountAndLogsEveryDelivery() {
        Paid first = orderWithPayment(db, TestPayProvider.NAME, "PENDING");
        Paid second = orderWithPayment(db, TestPayProvider.NAME, "PENDING");
        String one = newEventId();
        String other = newEventId();
        assertThat(deliver(event(one, "payment.succeeded", first.providerPaymentId(), "SUCCEEDED")).statusCode()).isEqualTo(200);
        assertThat(deliver(event(other, "payment.succeeded", second.providerPaymentId(), "SUCCEEDED")).statusCode()).isEqualTo(200);
        Instant latest = Instant.parse("2031-01-02T03:04:05Z");

        deliveryLog.append(new WebhookDeliveryLog.Delivery(TestPayProvider.NAME, one, latest.minusSeconds(60), "duplicate", 200, true));
        deliveryLog.append(new WebhookDeliveryLog.Delivery(TestPayProvider.NAME, other, latest.minusSeconds(30), "duplicate", 200, true));
        deliveryLog.append(new WebhookDeliveryLog.Delivery(TestPayProvider.NAME, one, latest, "duplicate", 200, true));
        deliveryLog.append(new WebhookDeliveryLog.Delivery(TestPayProvider.NAME, one, latest.minusSeconds(90), "duplicate", 200, true));
        deliveryLog.flush();

        assertThat(Database.single(db, String.class, "SELECT delivery_count || ' ' || to_char(last_delivered_at AT TIME ZONE 'UTC',"
                + " 'YYYY-MM-DD HH24:MI:SS') FROM webhook_inbox WHERE event_id = ?", one)).isEqualTo("4 2031-01-02 03:04:05");
        assertThat(Database.single(db, String.class, "SELECT delivery_count || ' ' || to_char(last_delivered_at AT TIME ZONE 'UTC',"
                + " 'YYYY-MM-DD HH24:MI:SS') FROM webhook_inbox WHERE event_id = ?", other)).isEqualTo("2 2031-01-02 03:03:35");
        assertThat(count(db, "SELECT count(*) FROM webhook_deliveries d JOIN webhook_inbox i ON i.id = d.inbox_id"
                + " WHERE i.event_id = ?", one)).isEqualTo(4);
        assertThat(count(db, "SELECT count(*) FROM webhook_deliveries d JOIN webhook_inbox i ON i.id = d.inbox_id"
                + " WHERE i.event_id = ?", other)).isEqualTo(2);
    }

    @Test
    void deliveriesAppendedWhileBatchesAreWrittenAreEachCountedOnce() throws Exception {
        Paid paid = orderWithPayment(db, TestPayProvider.NAME, "PENDING");
        String eventId = newEventId();
        assertThat(deliver(event(eventId, "payment.succeeded", paid.providerPaymentId(), "SUCCEEDED")).statusCode()).isEqualTo(200);
        int threads = 6;
        int each = 50;
        CyclicBarrier barrier = new CyclicBarrier(threads + 1);
        ExecutorService pool = Executors.newFixedThreadPool(threads + 1);
        List<Future<?>> work = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            work.add(pool.submit(() -> {
                barrier.await();
                for (int i = 0; i < each; i++) {
                    deliveryLog.append(new WebhookDeliveryLog.Delivery(TestPayProvider.NAME, eventId, Instant.now(),
                            "duplicate", 200, true));
                }
                return null;
            }));
        }
        work.add(pool.submit(() -> {
            barrier.await();
            for (int i = 0; i < 20; i++) {
                deliveryLog.flush();
            }
            return null;
        }));
        for (Future<?> done : work) {
            done.get();
        }
        pool.shutdown();
        deliveryLog.flush();

        assertThat(count(db, "SELECT delivery_count FROM webhook_inbox WHERE event_id = ?", eventId)).isEqualTo(1 + threads * each);
        assertThat(count(db, "SELECT count(*) FROM webhook_deliveries d JOIN webhook_inbox i ON i.id = d.inbox_id"
                + " WHERE i.event_id = ?", eventId)).isEqualTo(1 + threads * each);
    }

    @Test
    void aSecretNameSpelledWithEscapesIsStillNotStored() {
        Paid paid = orderWithPayment(db, TestPayProvider.NAME, "PENDING");
        String eventId = newEventId();
        String body = event(eventId, "payment.succeeded", paid.providerPaymentId(), "SUCCEEDED")
                .replaceFirst("}$", ",\"card\":{\"\\\\u0074oken\":\"tok_visible_1234\"}}");

        assertThat(deliver(body).path("status").toString()).isEqualTo("processed");

        assertThat(Database.single(db, String.class, "SELECT payload #>> '{card,token}' FROM webhook_inbox WHERE event_id = ?",
                eventId)).isEqualTo(SecretFields.HIDDEN);
        assertThat(count(db, "SELECT count(*) FROM webhook_inbox WHERE event_id = ?"
                + " AND position('tok_visible' IN CAST(payload AS text)) > 0", eventId)).isZero();
    }

    private static List<String> raceAtABarrier(int deliveries, String body) throws Exception {
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
            statuses.add(response.statusCode() + " " + response.path("status"));
        }
        pool.shutdown();
        return statuses;
    }
}
