package dev.onceguard.fulfilment;

import dev.onceguard.PaidOrders;
import dev.onceguard.TestTokens;
import dev.onceguard.outbox.OutboxEvent;
import dev.onceguard.outbox.OutboxHandler;
import dev.onceguard.outbox.OutboxRelay;
import dev.onceguard.checkout.OrderSettlement;
import io.agroal.api.AgroalDataSource;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.narayana.jta.QuarkusTransaction;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.time.Instant;
import java.util.List;

import static dev.onceguard.Database.count;
import static dev.onceguard.Database.execute;
import static dev.onceguard.PaidOrders.COURSE;
import static dev.onceguard.PaidOrders.EBOOK;
import static dev.onceguard.PaidOrders.KEYBOARD;
import static org.assertj.core.api.Assertions.assertThat;

@QuarkusTest
class OrderPaidEffectsTest {

    @Inject
    AgroalDataSource db;
    @Inject
    PaidOrders paidOrders;
    @Inject
    OutboxRelay relay;
    @Inject
    LicenseHandler licenses;
    @Inject
    FulfilmentRows effects;
    @Inject
    FaultAfterEffects fault;
    @Inject
    MeterRegistry registry;

    @BeforeEach
    void deliverWhatEarlierTestsLeftDue() {
        paidOrders.relayUntilIdle();
    }

    @Test
    void aFailureAfterTheLicenseCommittedDoesNotIssueASecondOne() {
        String orderId = paidOrders.create(TestTokens.newUser(), EBOOK, KEYBOARD);
        fault.failOnceFor(orderId);

        relay.runOnce();

        assertThat(licensesOf(orderId)).isEqualTo(1);
        String licenseId = effects.viewOf(orderId).licenses().get(0).licenseId();
        assertThat(eventStatus(orderId)).isEqualTo("PENDING");
        assertThat(count(db, "SELECT attempts FROM outbox_events WHERE aggregate_id = ?", orderId)).isEqualTo(1);
        assertThat(count(db, "SELECT count(*) FROM outbox_events WHERE aggregate_id = ? "
                + "AND last_error = 'test_fault: IllegalStateException'", orderId)).isEqualTo(1);
        assertThat(orderStatus(orderId)).isEqualTo("PAID");

        double skippedBefore = counter("license", "skipped");
        makeDue(orderId);
        relay.runOnce();

        assertThat(licensesOf(orderId)).isEqualTo(1);
        assertThat(count(db, "SELECT count(*) FROM licenses WHERE order_id = ? AND license_id = ?", orderId, licenseId))
                .isEqualTo(1);
        assertThat(count(db, "SELECT count(*) FROM notifications WHERE order_id = ?", orderId)).isEqualTo(1);
        assertThat(count(db, "SELECT count(*) FROM loyalty_ledger WHERE order_id = ?", orderId)).isEqualTo(1);
        assertThat(eventStatus(orderId)).isEqualTo("DONE");
        assertThat(orderStatus(orderId)).isEqualTo("FULFILLED");
        assertThat(counter("license", "skipped")).isGreaterThanOrEqualTo(skippedBefore + 1);
    }

    @Test
    void aRelayThatDiedAfterTheEffectsLeavesTheEventToTheNextClaimAfterItsLease() {
        String orderId = paidOrders.create(TestTokens.newUser(), COURSE);
        long eventId = count(db, "SELECT id FROM outbox_events WHERE aggregate_id = ?", orderId);
        // What a relay leaves behind when it dies right after the license committed: a claimed event, its lease running.
        execute(db, "UPDATE outbox_events SET attempts = 1, next_attempt_at = now() + interval '60 seconds', "
                + "claim_token = gen_random_uuid() WHERE id = ?", eventId);
        OutboxEvent claimed = new OutboxEvent(eventId, OrderSettlement.ORDER_PAID, "order", orderId, null, 1, Instant.now());
        assertThat(QuarkusTransaction.requiringNew().call(() -> licenses.handle(claimed)))
                .isEqualTo(OutboxHandler.Result.EXECUTED);

        relay.runOnce();
        assertThat(eventStatus(orderId)).isEqualTo("PENDING");
        assertThat(orderStatus(orderId)).isEqualTo("PAID");

        execute(db, "UPDATE outbox_events SET next_attempt_at = now() - interval '1 second' WHERE id = ?", eventId);
        relay.runOnce();

        assertThat(licensesOf(orderId)).isEqualTo(1);
        assertThat(eventStatus(orderId)).isEqualTo("DONE");
        assertThat(count(db, "SELECT attempts FROM outbox_events WHERE id = ?", eventId)).isEqualTo(2);
        assertThat(orderStatus(orderId)).isEqualTo("FULFILLED");
    }

    @Test
    void aPhysicalOnlyOrderGetsANotificationAndPointsButNoLicense() {
        String orderId = paidOrders.create(TestTokens.newUser(), KEYBOARD);

        relay.runOnce();

        assertThat(licensesOf(orderId)).isZero();
        assertThat(count(db, "SELECT count(*) FROM notifications WHERE order_id = ? AND dedupe_key = ? AND kind = ?",
                orderId, "order-paid:" + orderId, ConfirmationNotificationHandler.KIND)).isEqualTo(1);
        assertThat(count(db, "SELECT points FROM loyalty_ledger WHERE order_id = ? AND reason = 'ORDER_PAID'", orderId))
                .isEqualTo(89);
        assertThat(eventStatus(orderId)).isEqualTo("DONE");
        assertThat(orderStatus(orderId)).isEqualTo("FULFILLED");
        FulfilmentView view = effects.viewOf(orderId);
        assertThat(view).isEqualTo(new FulfilmentView(List.of(), 1, 89));
    }

    @Test
    void aDigitalOrderGetsOneLicenseForAllItsDigitalItems() {
        String user = TestTokens.newUser();
        String orderId = paidOrders.create(user, EBOOK, COURSE);

        relay.runOnce();

        assertThat(count(db, "SELECT count(*) FROM licenses WHERE order_id = ? AND user_id = ? AND license_id LIKE 'lic\\_%'",
                orderId, user)).isEqualTo(1);
        FulfilmentView view = effects.viewOf(orderId);
        assertThat(view.licenses()).hasSize(1);
        assertThat(view.licenses().get(0).licenseId()).startsWith("lic_");
        assertThat(view.notifications()).isEqualTo(1);
        assertThat(view.loyaltyPoints()).isEqualTo(64);
        assertThat(orderStatus(orderId)).isEqualTo("FULFILLED");
    }

    @Test
    void anOrderWithoutEffectsYetShowsAnEmptyFulfilment() {
        FulfilmentView view = effects.viewOf("ord_unknown");

        assertThat(view).isEqualTo(new FulfilmentView(List.of(), 0, 0));
    }

    @Test
    void onePointPerHundredUnitsRoundedDown() {
        assertThat(LoyaltyPointsHandler.pointsFor(new BigDecimal("1500.00"))).isEqualTo(15);
        assertThat(LoyaltyPointsHandler.pointsFor(new BigDecimal("8990.00"))).isEqualTo(89);
        assertThat(LoyaltyPointsHandler.pointsFor(new BigDecimal("99.99"))).isZero();
        assertThat(LoyaltyPointsHandler.pointsFor(new BigDecimal("0.00"))).isZero();
    }

    private long licensesOf(String orderId) {
        return count(db, "SELECT count(*) FROM licenses WHERE order_id = ?", orderId);
    }

    private String eventStatus(String orderId) {
        return PaidOrders.eventStatus(db, orderId);
    }

    private String orderStatus(String orderId) {
        return PaidOrders.orderStatus(db, orderId);
    }

    private void makeDue(String orderId) {
        execute(db, "UPDATE outbox_events SET next_attempt_at = now() - interval '1 second' WHERE aggregate_id = ?",
                orderId);
    }

    private double counter(String effect, String result) {
        return registry.get("onceguard.effects").tag("effect", effect).tag("result", result).counter().count();
    }
}
