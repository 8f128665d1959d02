package dev.onceguard.fulfilment;

import dev.onceguard.outbox.EffectFailure;
import jakarta.persistence.EntityManager;
import org.hibernate.query.NativeQuery;
import org.hibernate.type.StandardBasicTypes;

import java.math.BigDecimal;
import java.util.List;

/** What the effects of {@code ORDER_PAID} need to know about the order. */
record PaidOrder(String orderId, String userId, BigDecimal total, boolean hasDigitalItems) {

    static PaidOrder load(EntityManager em, String orderId) {
        List<Object[]> rows = em.createNativeQuery("""
                        SELECT o.user_id, o.total,
                               EXISTS (SELECT 1 FROM order_items i JOIN products p ON p.product_id = i.product_id
                                        WHERE i.order_id = o.order_id AND p.kind = 'DIGITAL') AS digital
                          FROM orders o WHERE o.order_id = :orderId""")
                .unwrap(NativeQuery.class)
                .addScalar("user_id", StandardBasicTypes.STRING)
                .addScalar("total", StandardBasicTypes.BIG_DECIMAL)
                .addScalar("digital", StandardBasicTypes.BOOLEAN)
                .setParameter("orderId", orderId)
                .getResultList();
        if (rows.isEmpty()) {
            throw new EffectFailure("order " + orderId + " does not exist");
        }
        Object[] row = rows.get(0);
        return new PaidOrder(orderId, (String) row[0], (BigDecimal) row[1], (Boolean) row[2]);
    }
}
