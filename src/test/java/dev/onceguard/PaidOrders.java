package dev.onceguard;

import dev.onceguard.checkout.CatalogRows;
import dev.onceguard.outbox.OutboxRelay;
import dev.onceguard.checkout.OrderSettlement;
import dev.onceguard.platform.Ids;
import dev.onceguard.platform.SqlRows;
import dev.onceguard.platform.Timestamps;
import io.agroal.api.AgroalDataSource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.transaction.Transactional;

import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * Paid orders with their {@code ORDER_PAID} event, written in one transaction as the payment flow writes them, for
 * tests of the outbox relay and the effects; and the relay's runs that a test needs.
 */
@ApplicationScoped
public class PaidOrders {

    public static final String EBOOK = "p-184";
    public static final String COURSE = "p-220";
    public static final String KEYBOARD = "p-310";

    private final OutboxRelay relay;
    private final Ids ids;
    private final CatalogRows catalog;
    private final SqlRows sql;

    public PaidOrders(OutboxRelay relay, Ids ids, CatalogRows catalog, SqlRows sql) {
        this.relay = relay;
        this.ids = ids;
        this.catalog = catalog;
        this.sql = sql;
    }

    /** A PAID order of {@code productIds} (one unit each) and its ORDER_PAID event; returns the order id. */
    @Transactional
    public String create(String userId, String... productIds) {
        return insert(ids.next("ord"), userId, productIds);
    }

    /** {@code count} paid orders in one transaction, alternating a digital and a physical-only one. */
    @Transactional
    public List<String> createMany(int count, String userId) {
        List<String> orderIds = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            orderIds.add(insert(ids.next("ord"), userId, i % 2 == 0 ? EBOOK : KEYBOARD));
        }
        return orderIds;
    }

    /** A PAID order with a given id, for an event that was enqueued before its order could be found. */
    @Transactional
    public void createOrderOnly(String orderId, String userId, String... productIds) {
        persistOrder(orderId, userId, productIds);
    }

    /** An ORDER_PAID event alone, as the payment flow writes it; its order may not exist. */
    public void enqueueOrderPaid(String orderId, String userId) {
        Instant now = Timestamps.now();
        sql.update("""
                INSERT INTO outbox_events (event_type, aggregate_type, aggregate_id, payload, next_attempt_at, created_at)
                VALUES (?, 'order', ?, jsonb_build_object('orderId', ?::text, 'paymentId', ?::text, 'userId', ?::text),
                        ?, ?)""", OrderSettlement.ORDER_PAID, orderId, orderId, ids.next("pay"), userId, now, now);
    }

    /**
     * Runs the outbox relay, as its schedule would, until no event is due: every due event is then delivered, or
     * waits for a later attempt. The test profile does not schedule the relay; tests that need it call this.
     */
    public void relayUntilIdle() {
        for (int run = 1; relay.runOnce().claimed() > 0; run++) {
            if (run == 100) {
                throw new IllegalStateException("the outbox relay still found due events after 100 runs");
            }
        }
    }

    public static String eventStatus(AgroalDataSource db, String orderId) {
        return text(db, "SELECT status FROM outbox_events WHERE aggregate_type = 'order' AND aggregate_id = ?", orderId);
    }

    public static String orderStatus(AgroalDataSource db, String orderId) {
        return text(db, "SELECT status FROM orders WHERE order_id = ?", orderId);
    }

    private static String text(AgroalDataSource db, String sql, String parameter) {
        try (Connection connection = db.getConnection(); PreparedStatement statement = connection.prepareStatement(sql)) {
            statement.setString(1, parameter);
            try (ResultSet rows = statement.executeQuery()) {
                return rows.next() ? rows.getString(1) : null;
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private String insert(String orderId, String userId, String... productIds) {
        persistOrder(orderId, userId, productIds);
        enqueueOrderPaid(orderId, userId);
        return orderId;
    }

    private void persistOrder(String orderId, String userId, String... productIds) {
        Map<String, CatalogRows.CatalogPrice> prices = catalog.prices(List.of(productIds));
        BigDecimal total = Arrays.stream(productIds).map(productId -> prices.get(productId).price())
                .reduce(BigDecimal.ZERO, BigDecimal::add);
        sql.update("""
                INSERT INTO orders (order_id, user_id, status, total, currency, request_id, created_at, updated_at)
                VALUES (?, ?, 'PAID', ?, 'RUB', 'test', now(), now())""", orderId, userId, total);
        for (int line = 0; line < productIds.length; line++) {
            sql.update("""
                    INSERT INTO order_items (order_id, line_no, product_id, quantity, unit_price)
                    VALUES (?, ?, ?, 1, ?)""", orderId, line, productIds[line], prices.get(productIds[line]).price());
        }
    }
}
